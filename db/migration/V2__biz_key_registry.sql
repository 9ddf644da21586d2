-- One bizKey registry for live and final jobs. The live and backlog tables each had their own
-- unique (app, biz_key), so a submit racing the move of an earlier job with the same bizKey from
-- the live table to the backlog could pass both checks and create a second job with that key (and
-- later fail to move it to the backlog). A key is now taken by inserting it here, in the submit's
-- transaction; it belongs to its job for the job's whole life, live or final, and goes only when
-- the job itself is deleted (retention).
CREATE TABLE hg_biz_key (
    app         VARCHAR(63)   NOT NULL,
    biz_key     VARCHAR(128)  NOT NULL,
    job_id      BIGINT        NOT NULL,
    PRIMARY KEY (app, biz_key)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE INDEX idx_biz_key_job ON hg_biz_key (job_id);

INSERT INTO hg_biz_key (app, biz_key, job_id)
    SELECT app, biz_key, id FROM job_delay_task_backlog WHERE biz_key IS NOT NULL;
INSERT INTO hg_biz_key (app, biz_key, job_id)
    SELECT app, biz_key, id FROM job_delay_task t WHERE biz_key IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM hg_biz_key k WHERE k.app = t.app AND k.biz_key = t.biz_key);
