-- Live jobs counted per (app, service, state), so that GET /api/v1/stats reads a few hundred rows
-- instead of grouping the whole live table (seconds at millions of pending jobs).
--
-- Every transaction that adds, removes or changes the state of live jobs appends what it changed
-- to hg_live_count_delta, aggregated per (app, service, state): append-only, so writers never wait
-- for each other on a hot counter row. A node folds committed deltas into hg_live_count every
-- second (one folder at a time: the hg_lock row). A count is hg_live_count plus the deltas not yet
-- folded, read in one statement; so it is exact at every moment, folded or not.
CREATE TABLE hg_live_count (
    app      VARCHAR(63)   NOT NULL,
    service  VARCHAR(63)   NOT NULL,
    state    VARCHAR(8)    NOT NULL,
    jobs     BIGINT        NOT NULL,
    PRIMARY KEY (app, service, state)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE hg_live_count_delta (
    id       BIGINT        NOT NULL AUTO_INCREMENT,
    app      VARCHAR(63)   NOT NULL,
    service  VARCHAR(63)   NOT NULL,
    state    VARCHAR(8)    NOT NULL,
    delta    BIGINT        NOT NULL,
    PRIMARY KEY (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- Named rows a maintenance task locks (SELECT ... FOR UPDATE) so that one node at a time runs it.
CREATE TABLE hg_lock (
    name     VARCHAR(63)   NOT NULL,
    PRIMARY KEY (name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
INSERT INTO hg_lock (name) VALUES ('live-count-fold');

-- The jobs already there. Nodes of an older version write no deltas: stop them all before the
-- first node of this version starts (docs/operations.md, "Upgrading").
INSERT INTO hg_live_count (app, service, state, jobs)
    SELECT app, service, state, COUNT(*) FROM job_delay_task GROUP BY app, service, state;
