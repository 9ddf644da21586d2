-- Searches of ended jobs by state (GET /api/v1/jobs?state=FAILED, the dashboard's lists, bulk
-- actions) page the backlog in id order. Without these indexes such a search read the backlog in
-- id order until it had a page, so a state that few ended jobs are in (FAILED, CANCELED, EXPIRED)
-- made it read the whole backlog: 30,000 rows for a page of 5 in BacklogSearchIT, about 30 ms per
-- 40,000 ended jobs in the benchmark, growing with retention.
-- InnoDB appends the primary key to each secondary index, so each of these is walked in id order
-- and the search stops after one page.
--   idx_backlog_state      the admin's search by state, across apps
--   idx_backlog_app_state  an app's search by state
-- (A search by app and service reads idx_backlog_service_ended, V6, whose order after the service
-- is state and ended_at: it sorts that service's ended jobs, which is cheap for a quiet service and
-- avoided by the optimizer for a busy one, whose page is found early in id order.)
-- Ended jobs are inserted in roughly increasing id order, so each index grows at the end of its
-- groups; CREATE INDEX on MariaDB/MySQL InnoDB builds online (reads and writes go on), except on
-- a Galera cluster, where DDL blocks the cluster while it runs (docs/operations.md).
CREATE INDEX idx_backlog_state ON job_delay_task_backlog (state);
CREATE INDEX idx_backlog_app_state ON job_delay_task_backlog (app, state);
