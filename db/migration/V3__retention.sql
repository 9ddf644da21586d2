-- Retention (retention/RetentionSweep) finds what to delete through these indexes, oldest first,
-- in batches: it never scans a table. Open attempts (finished_at NULL) sort outside every range
-- "finished_at < cutoff", so they are never candidates. Each index costs one more entry per
-- attempt or final job written.
CREATE INDEX idx_execlog_finished ON job_delay_task_execlog (finished_at);
CREATE INDEX idx_backlog_ended_at ON job_delay_task_backlog (ended_at);
