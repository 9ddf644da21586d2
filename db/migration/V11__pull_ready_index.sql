-- Pull consumers (protocol PULL) reserve a service's oldest ready jobs: DELAYED, due, of one app
-- and service, in due order. With only idx_task_service (app, service) a reserve read every live
-- job of the service and sorted them, growing with the queue; this index answers it, the count of
-- a service's open reservations (maxInFlight) and a watcher's "next due time" of a service by a
-- short range read. It replaces idx_task_service, whose columns are its prefix.
-- The cost: a claim or a result changes state and due_at, so it now updates this index as well
-- (idx_task_service did not change then); measured in docs/design.md, "Pull consumers".
CREATE INDEX idx_task_ready ON job_delay_task (app, service, state, due_at);
DROP INDEX idx_task_service ON job_delay_task;
