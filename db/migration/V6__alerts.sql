-- Alerts (docs/alerts.md). A service's policy gains two more conditions besides "N jobs FAILED
-- within a window": N consecutive failed attempts, and jobs overdue by more than a number of seconds.
ALTER TABLE job_callback_service ADD COLUMN alert_consecutive INT NULL;
ALTER TABLE job_callback_service ADD COLUMN alert_overdue_s INT NULL;

-- "N consecutive failed attempts" reads a service's latest attempts: the execution log learns
-- whose attempt each row is (rows written before this migration have none and are not counted).
ALTER TABLE job_delay_task_execlog ADD COLUMN app VARCHAR(63) NULL;
ALTER TABLE job_delay_task_execlog ADD COLUMN service VARCHAR(63) NULL;
CREATE INDEX idx_execlog_service ON job_delay_task_execlog (app, service, finished_at);

-- "N jobs FAILED within a window": a range of this index, FAILED rows of one service only.
CREATE INDEX idx_backlog_service_ended ON job_delay_task_backlog (app, service, state, ended_at);

-- One row per alert: opened FIRING when a condition holds, RESOLVED when it clears, never deleted
-- by the node (history). open_key is app/service/kind while FIRING and NULL after: the unique key
-- allows one open alert per condition even if two nodes evaluated at once during a master change.
-- notified_state is the last state the webhook accepted; a row whose state differs is owed a
-- notification, sent at next_notify_at (retried with backoff, notify_attempts, last_notify_error).
CREATE TABLE hg_alert (
    id                BIGINT         NOT NULL AUTO_INCREMENT,
    app               VARCHAR(63)    NOT NULL,
    service           VARCHAR(63)    NOT NULL,
    kind              VARCHAR(24)    NOT NULL,
    state             VARCHAR(8)     NOT NULL,
    open_key          VARCHAR(160)   NULL,
    threshold         BIGINT         NOT NULL,
    observed          BIGINT         NOT NULL,
    message           VARCHAR(512)   NOT NULL,
    fired_at          BIGINT         NOT NULL,
    resolved_at       BIGINT         NULL,
    acked_by          VARCHAR(64)    NULL,
    acked_at          BIGINT         NULL,
    webhook           VARCHAR(2048)  NULL,
    notified_state    VARCHAR(8)     NULL,
    notify_attempts   INT            NOT NULL,
    next_notify_at    BIGINT         NULL,
    last_notify_error VARCHAR(512)   NULL,
    updated_at        BIGINT         NOT NULL,
    PRIMARY KEY (id),
    CONSTRAINT uk_alert_open UNIQUE (open_key)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE INDEX idx_alert_app ON hg_alert (app, fired_at);
CREATE INDEX idx_alert_fired ON hg_alert (fired_at);
CREATE INDEX idx_alert_notify ON hg_alert (next_notify_at);
