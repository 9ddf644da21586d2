-- What operators did to many jobs at once (POST /api/v1/jobs/bulk, docs/operations.md "Bulk
-- actions"): who, when, what, with which filter, how many jobs it changed, and the error that
-- stopped it part-way if one did (what was changed before stays changed). Kept by the node.
CREATE TABLE hg_audit (
    id         BIGINT         NOT NULL AUTO_INCREMENT,
    at         BIGINT         NOT NULL,
    actor      VARCHAR(80)    NOT NULL,
    app        VARCHAR(63)    NOT NULL,
    action     VARCHAR(24)    NOT NULL,
    filter     VARCHAR(2048)  NOT NULL,
    matched    BIGINT         NOT NULL,
    changed    BIGINT         NOT NULL,
    skipped    BIGINT         NOT NULL,
    error      VARCHAR(512)   NULL,
    PRIMARY KEY (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE INDEX idx_audit_app ON hg_audit (app, id);
