-- Recurring schedules (docs/api.md, "Schedules"): each submits one ordinary job per occurrence,
-- with the bizKey sched:<name>:<generation>:<occurrence epoch ms>. Its jobs are found by that
-- prefix (uk_task_biz_key and uk_backlog_biz_key are (app, biz_key)), so jobs need no new column.
--   shard          the shard that owns the schedule (as a job's), whose owner node materialises it
--   generation     changes when the schedule is created again or replaced: a new bizKey series
--   cursor_at      the last occurrence submitted or given up (misfire, overlap, pause); the next
--                  pass plans what comes after it. Written in the pass's own transaction, with
--                  the jobs it submits, under a lock of this row
--   next_check_at  when the owner looks at the schedule again; NULL while paused or once the
--                  series has ended. idx_schedule_check (shard, next_check_at) is the owner's
--                  paged, indexed read: a node never scans its schedules
CREATE TABLE hg_schedule (
    app                 VARCHAR(63)   NOT NULL,
    name                VARCHAR(63)   NOT NULL,
    shard               INT           NOT NULL,
    service             VARCHAR(63)   NOT NULL,
    cron                VARCHAR(255)  NULL,
    every_ms            BIGINT        NULL,
    time_zone           VARCHAR(64)   NOT NULL,
    payload             MEDIUMTEXT    NOT NULL,
    attributes          TEXT          NULL,
    start_at            BIGINT        NULL,
    end_at              BIGINT        NULL,
    misfire             VARCHAR(16)   NOT NULL,
    catch_up_window_ms  BIGINT        NOT NULL,
    overlap             VARCHAR(8)    NOT NULL,
    paused              TINYINT       NOT NULL,
    paused_at           BIGINT        NULL,
    max_attempts        INT           NULL,
    timeout_ms          BIGINT        NULL,
    expire_after_ms     BIGINT        NULL,
    generation          BIGINT        NOT NULL,
    cursor_at           BIGINT        NOT NULL,
    next_check_at       BIGINT        NULL,
    last_occurrence_at  BIGINT        NULL,
    last_job_id         BIGINT        NULL,
    created_at          BIGINT        NOT NULL,
    updated_at          BIGINT        NOT NULL,
    PRIMARY KEY (app, name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE INDEX idx_schedule_check ON hg_schedule (shard, next_check_at);
CREATE INDEX idx_schedule_service ON hg_schedule (app, service);
