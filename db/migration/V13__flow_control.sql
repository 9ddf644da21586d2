-- Flow control per service (docs/api.md, "Flow control"). Pause: paused_at is set while paused
-- (paused_by names who paused it); resumed_at is the last resume, from which the OVERDUE alert
-- counts. Rate limit: attempts started per second and the burst above it, cluster-wide (NULL: no
-- limit). Dead letter: the service of the same app that FAILED (and, if dead_letter_on says so,
-- EXPIRED) jobs are submitted to; dead_letter_on is a comma-separated list of end states.
ALTER TABLE job_callback_service ADD COLUMN paused_at BIGINT NULL;
ALTER TABLE job_callback_service ADD COLUMN paused_by VARCHAR(128) NULL;
ALTER TABLE job_callback_service ADD COLUMN resumed_at BIGINT NULL;
ALTER TABLE job_callback_service ADD COLUMN rate_per_second INT NULL;
ALTER TABLE job_callback_service ADD COLUMN rate_burst INT NULL;
ALTER TABLE job_callback_service ADD COLUMN dead_letter VARCHAR(63) NULL;
ALTER TABLE job_callback_service ADD COLUMN dead_letter_on VARCHAR(32) NULL;

-- One row counting the changes to services: every put, delete, pause and resume adds one in its
-- transaction. Each node reads it twice a second and reloads its services when it moved, so a
-- pause reaches the whole cluster within a second without every node reading every service that
-- often.
CREATE TABLE hg_service_version (
    id       INT     NOT NULL,
    version  BIGINT  NOT NULL,
    PRIMARY KEY (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
INSERT INTO hg_service_version (id, version) VALUES (1, 0);

-- A PULL service's rate-limit bucket: its reservations are made by whichever node a consumer asks,
-- under the service row's lock, so the bucket lives in the row and the limit is exact across the
-- cluster. rate_tokens held at rate_at (ms); NULL: full.
ALTER TABLE job_callback_service ADD COLUMN rate_tokens DOUBLE NULL;
ALTER TABLE job_callback_service ADD COLUMN rate_at BIGINT NULL;
