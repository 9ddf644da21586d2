-- Hourglass schema. Portable across MySQL 8, MariaDB 10.6+ and H2 (MySQL mode, standalone demo).
-- Times are epoch milliseconds (BIGINT): no time-zone conversion anywhere between node and database.

CREATE TABLE hg_app (
    name        VARCHAR(63)  NOT NULL,
    created_at  BIGINT       NOT NULL,
    PRIMARY KEY (name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- App tokens are stored only as the SHA-256 of the token.
CREATE TABLE hg_app_token (
    id          VARCHAR(32)  NOT NULL,
    app         VARCHAR(63)  NOT NULL,
    token_hash  CHAR(64)     NOT NULL,
    created_at  BIGINT       NOT NULL,
    revoked_at  BIGINT       NULL,
    PRIMARY KEY (id),
    CONSTRAINT uk_token_hash UNIQUE (token_hash)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE INDEX idx_token_app ON hg_app_token (app);

-- Delivery targets (SPEC "service"), the seed design's service configuration table.
CREATE TABLE job_callback_service (
    app                 VARCHAR(63)   NOT NULL,
    name                VARCHAR(63)   NOT NULL,
    protocol            VARCHAR(8)    NOT NULL,
    topic               VARCHAR(249)  NULL,
    url                 VARCHAR(2048) NULL,
    dubbo_group         VARCHAR(128)  NULL,
    dubbo_version       VARCHAR(64)   NULL,
    max_attempts        INT           NOT NULL,
    timeout_ms          BIGINT        NOT NULL,
    backoff_initial_ms  BIGINT        NOT NULL,
    backoff_multiplier  DOUBLE        NOT NULL,
    backoff_max_ms      BIGINT        NOT NULL,
    ack_mode            VARCHAR(8)    NOT NULL,
    max_in_flight       INT           NOT NULL,
    signing_secret      VARCHAR(256)  NULL,
    alert_failures      INT           NULL,
    alert_window_s      INT           NULL,
    alert_webhook       VARCHAR(2048) NULL,
    created_at          BIGINT        NOT NULL,
    updated_at          BIGINT        NOT NULL,
    PRIMARY KEY (app, name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- Live jobs (DELAYED and RUNNING). Final jobs move to job_delay_task_backlog, so scans of this
-- table never touch them.
--   fire_at   the time the next attempt is due (the user's fire time, or a retry's time)
--   due_at    when the scheduler must next act: fire_at while DELAYED, the attempt's timeout
--             deadline while RUNNING. idx_due (shard, state, due_at) serves the loader, the
--             catch-up sweep and the timeout sweep alike.
--   attempts  attempts made so far, = the number of the current/last attempt
--   budget_base  attempts already spent before the last manual retry (fresh budget)
--   claim_token  written by every conditional state change; the statement that follows reads
--             back exactly the rows that change won
CREATE TABLE job_delay_task (
    id               BIGINT        NOT NULL,
    app              VARCHAR(63)   NOT NULL,
    service          VARCHAR(63)   NOT NULL,
    biz_key          VARCHAR(128)  NULL,
    shard            INT           NOT NULL,
    state            VARCHAR(8)    NOT NULL,
    fire_at          BIGINT        NOT NULL,
    due_at           BIGINT        NOT NULL,
    expire_at        BIGINT        NULL,
    attempts         INT           NOT NULL,
    budget_base      INT           NOT NULL,
    max_attempts     INT           NOT NULL,
    timeout_ms       BIGINT        NOT NULL,
    expire_after_ms  BIGINT        NULL,
    payload          MEDIUMTEXT    NOT NULL,
    attributes       TEXT          NULL,
    last_error       VARCHAR(1024) NULL,
    owner_node       VARCHAR(64)   NULL,
    claim_token      VARCHAR(64)   NULL,
    version          INT           NOT NULL,
    created_at       BIGINT        NOT NULL,
    updated_at       BIGINT        NOT NULL,
    PRIMARY KEY (id),
    CONSTRAINT uk_task_biz_key UNIQUE (app, biz_key)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE INDEX idx_task_due ON job_delay_task (shard, state, due_at);
CREATE INDEX idx_task_service ON job_delay_task (app, service);

-- One row per attempt. The primary key (job_id, attempt) makes a second delivery with the same
-- attempt number impossible: the claim inserts the row in the claim's transaction.
CREATE TABLE job_delay_task_execlog (
    job_id       BIGINT        NOT NULL,
    attempt      INT           NOT NULL,
    node         VARCHAR(64)   NOT NULL,
    fire_at      BIGINT        NOT NULL,
    fired_at     BIGINT        NOT NULL,
    finished_at  BIGINT        NULL,
    outcome      VARCHAR(8)    NULL,
    message      VARCHAR(1024) NULL,
    PRIMARY KEY (job_id, attempt)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- Final jobs: FINISHED, FAILED, CANCELED, EXPIRED. Same columns as the live table plus ended_at.
CREATE TABLE job_delay_task_backlog (
    id               BIGINT        NOT NULL,
    app              VARCHAR(63)   NOT NULL,
    service          VARCHAR(63)   NOT NULL,
    biz_key          VARCHAR(128)  NULL,
    shard            INT           NOT NULL,
    state            VARCHAR(8)    NOT NULL,
    fire_at          BIGINT        NOT NULL,
    due_at           BIGINT        NOT NULL,
    expire_at        BIGINT        NULL,
    attempts         INT           NOT NULL,
    budget_base      INT           NOT NULL,
    max_attempts     INT           NOT NULL,
    timeout_ms       BIGINT        NOT NULL,
    expire_after_ms  BIGINT        NULL,
    payload          MEDIUMTEXT    NOT NULL,
    attributes       TEXT          NULL,
    last_error       VARCHAR(1024) NULL,
    owner_node       VARCHAR(64)   NULL,
    claim_token      VARCHAR(64)   NULL,
    version          INT           NOT NULL,
    created_at       BIGINT        NOT NULL,
    updated_at       BIGINT        NOT NULL,
    ended_at         BIGINT        NOT NULL,
    PRIMARY KEY (id),
    CONSTRAINT uk_backlog_biz_key UNIQUE (app, biz_key)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE INDEX idx_backlog_ended ON job_delay_task_backlog (app, ended_at);
