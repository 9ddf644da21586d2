package dev.hourglass.node.api.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.NodeFixture;
import dev.hourglass.node.testing.RunsAlongside;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A batch submit is all or nothing when the store fails: a failure injected in the middle of the
 * batch (a trigger that refuses one row) answers an error and commits no job, so the client's retry
 * of the same batch creates each job once. Per-item errors are for invalid items only.
 */
@RunsAlongside
class BatchAtomicityIT {
    static NodeFixture f;
    static String service;

    @BeforeAll
    static void start() throws Exception {
        f = new NodeFixture(c -> c.dubbo.enabled = false); // HTTP only
        service = f.httpService("");
    }

    @AfterAll
    static void stop() {
        f.close();
    }

    @AfterEach
    void dropTrigger() throws Exception {
        sql("DROP TRIGGER IF EXISTS hg_test_fail_mid_batch");
    }

    private static void sql(String statement) throws Exception {
        try (Connection c = DriverManager.getConnection(f.jdbcUrl, "root", "");
                Statement s = c.createStatement()) {
            s.execute(statement);
        }
    }

    private static long liveJobs(String payload) throws Exception {
        try (Connection c = DriverManager.getConnection(f.jdbcUrl, "root", "");
                Statement s = c.createStatement();
                ResultSet r =
                        s.executeQuery("SELECT COUNT(*) FROM job_delay_task WHERE payload LIKE '%" + payload + "%'")) {
            r.next();
            return r.getLong(1);
        }
    }

    private static String batch(String tag, String... payloads) {
        StringBuilder body = new StringBuilder("{\"jobs\":[");
        for (int i = 0; i < payloads.length; i++) {
            body.append(i == 0 ? "" : ",")
                    .append("{\"service\":\"")
                    .append(service)
                    .append("\",\"delayMs\":600000,\"payload\":{\"tag\":\"")
                    .append(tag)
                    .append("\",\"kind\":\"")
                    .append(payloads[i])
                    .append("\"}}");
        }
        return body.append("]}").toString();
    }

    @Test
    void aDuplicateKeyErrorMidBatchCommitsNothing() throws Exception {
        // the row refused as a duplicate sends the old code down its row-by-row fallback, which
        // committed the rows before it and then failed on it
        sql("CREATE TRIGGER hg_test_fail_mid_batch BEFORE INSERT ON job_delay_task FOR EACH ROW BEGIN"
                + " IF NEW.payload LIKE '%\"kind\":\"dup\"%' THEN"
                + " SIGNAL SQLSTATE '23000' SET MESSAGE_TEXT = 'injected duplicate'; END IF; END");
        String body = batch("t1", "a", "b", "dup", "c");
        ApiClient.Answer answer = f.app.post("/api/v1/jobs/batch", body);
        assertThat(answer.status()).as(answer.text()).isGreaterThanOrEqualTo(500);
        assertThat(liveJobs("\"tag\":\"t1\""))
                .as("jobs committed by a failed batch")
                .isZero();

        dropTrigger();
        ApiClient.Answer retried = f.app.post("/api/v1/jobs/batch", body);
        assertThat(retried.status()).isEqualTo(200);
        assertThat(liveJobs("\"tag\":\"t1\""))
                .as("the retry creates each job once")
                .isEqualTo(4);
    }

    @Test
    void aStoreFailureMidBatchCommitsNothing() throws Exception {
        sql("CREATE TRIGGER hg_test_fail_mid_batch BEFORE INSERT ON job_delay_task FOR EACH ROW BEGIN"
                + " IF NEW.payload LIKE '%\"kind\":\"boom\"%' THEN"
                + " SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'injected store failure'; END IF; END");
        String body = batch("t2", "a", "b", "boom", "c");
        ApiClient.Answer answer = f.app.post("/api/v1/jobs/batch", body);
        assertThat(answer.status()).as(answer.text()).isGreaterThanOrEqualTo(500);
        assertThat(liveJobs("\"tag\":\"t2\"")).isZero();
    }
}
