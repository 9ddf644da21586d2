-- Job search with a fire-time range (the dashboard's and GET /api/v1/jobs' fireFrom/fireTo) walks
-- these indexes in (fire_at, id) order and stops after one page. Without them such a search read
-- the table in id order until it had found a page: 22.7 s (p50) for one minute's jobs among 10M.
-- fire_at changes when a job is rescheduled or retried after a failed attempt; claims and
-- successful attempts do not touch it, so the live table pays for this index mostly on insert and
-- delete.
CREATE INDEX idx_task_fire ON job_delay_task (fire_at);
CREATE INDEX idx_backlog_fire ON job_delay_task_backlog (fire_at);
