-- Delivery targets the admin grants an app beyond those named after it (docs/security.md): one row
-- per pattern. kind is KAFKA_TOPIC or DUBBO_GROUP (pattern: a name, * for any run of characters),
-- or DUBBO_DEFAULT_GROUP (pattern empty): the app may call Dubbo's default group through the
-- registry. Binary collation: Kafka topics and Dubbo groups are case-sensitive, so "Audit" and
-- "audit" are two patterns.
CREATE TABLE hg_app_target (
    app      VARCHAR(63)   NOT NULL,
    kind     VARCHAR(24)   NOT NULL,
    pattern  VARCHAR(249)  NOT NULL,
    PRIMARY KEY (app, kind, pattern)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Nothing that worked before stops working: every target an existing service uses is granted to
-- its app as it is (the admin may narrow these afterwards: GET/PUT /api/v1/apps/{name}/targets).
INSERT INTO hg_app_target (app, kind, pattern)
    SELECT DISTINCT app, 'KAFKA_TOPIC', topic FROM job_callback_service
     WHERE protocol = 'KAFKA' AND topic IS NOT NULL;
INSERT INTO hg_app_target (app, kind, pattern)
    SELECT DISTINCT app, 'DUBBO_GROUP', dubbo_group FROM job_callback_service
     WHERE protocol = 'DUBBO' AND dubbo_group IS NOT NULL;
INSERT INTO hg_app_target (app, kind, pattern)
    SELECT DISTINCT app, 'DUBBO_DEFAULT_GROUP', '' FROM job_callback_service
     WHERE protocol = 'DUBBO' AND dubbo_group IS NULL AND url IS NULL;
