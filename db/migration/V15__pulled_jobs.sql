-- Jobs of PULL services are their consumers' (reserved on idx_task_ready); the engine never holds
-- them. Its reads of due jobs (the window's extension, the catch-up sweep every 2 s from the oldest
-- overdue job on) went shard by shard on idx_task_due (shard, state, due_at) and left the PULL
-- services out with (app, service) NOT IN (...), a test made on each job's row: every sweep read
-- every ready PULL job of its shards, the whole of a queue nobody consumes as well. `pulled` says
-- it in the index, so those reads skip them by range (docs/design.md, "The engine leaves PULL jobs
-- alone"). It is the service's protocol when the job entered the live table, which cannot change
-- while the job lives (a service does not move between PULL and a pushed protocol, and is deleted
-- only without live jobs). Jobs inserted by a node before V15 have FALSE: the engine reads them
-- and drops them, as before.
ALTER TABLE job_delay_task ADD COLUMN pulled BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE job_delay_task SET pulled = TRUE
  WHERE EXISTS (SELECT 1 FROM job_callback_service s
                WHERE s.app = job_delay_task.app AND s.name = job_delay_task.service AND s.protocol = 'PULL');
CREATE INDEX idx_task_shard_due ON job_delay_task (shard, state, pulled, due_at);
DROP INDEX idx_task_due ON job_delay_task;
