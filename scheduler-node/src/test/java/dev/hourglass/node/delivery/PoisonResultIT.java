package dev.hourglass.node.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hourglass.node.testing.NodeFixture;
import dev.hourglass.node.testing.RunsAlongside;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One result the database refuses does not hold back the others written with it: the batch is
 * split until the refused row stands alone, the others are written at once, and the refused job
 * ends FAILED, visibly (its execution log says why, a metric counts it). The refusal is forced the
 * way the issue found it: the backlog already holds the job's bizKey, so moving the finished job
 * there violates the backlog's unique key.
 */
@RunsAlongside
class PoisonResultIT {
    static NodeFixture f;

    @BeforeAll
    static void start() throws Exception {
        f = new NodeFixture(c -> c.dubbo.enabled = false); // HTTP only
    }

    @AfterAll
    static void stop() {
        f.close();
    }

    @Test
    void aRefusedResultIsIsolatedAndEveryOtherResultIsWrittenAtOnce() throws Exception {
        String service = f.httpService("\"timeoutMs\":60000");
        List<String> ids = new ArrayList<>();
        // all due 10 s after the first submit: the backlog row below must be in before job 17's
        // result is written, however long the 40 submits take (the class runs beside other
        // test JVMs: README, "Tests")
        long dueAt = System.currentTimeMillis() + 10_000;
        for (int i = 0; i < 40; i++) {
            ids.add(f.submit(
                            service, Math.max(0, dueAt - System.currentTimeMillis()), "\"bizKey\":\"poison-" + i + "\"")
                    .get("id")
                    .asText());
        }
        String poisoned = ids.get(17);
        try (Connection c = DriverManager.getConnection(f.jdbcUrl, "root", "");
                Statement s = c.createStatement()) {
            // a final job already holding the key in the backlog: what a bizKey race used to leave
            s.executeUpdate("INSERT INTO job_delay_task_backlog (id, app, service, biz_key, shard, state, fire_at,"
                    + " due_at, attempts, budget_base, max_attempts, timeout_ms, payload, version, created_at,"
                    + " updated_at, ended_at) VALUES (1, 'shop', '" + service + "', 'poison-17', 0, 'FINISHED',"
                    + " 0, 0, 1, 0, 5, 1000, 'null', 0, 0, 0, 0)");
        }
        await().atMost(Duration.ofSeconds(60))
                .until(() ->
                        ids.stream().filter(id -> !id.equals(poisoned)).allMatch(id -> "FINISHED".equals(f.state(id))));
        await().atMost(Duration.ofSeconds(30)).until(() -> "FAILED".equals(f.state(poisoned)));
        JsonNode execution = f.executions(poisoned).get(0);
        assertThat(execution.get("outcome").asText()).isEqualTo("ERROR");
        assertThat(execution.get("message").asText()).contains("result could not be written");
        assertThat(f.receiver.receivedFor(poisoned))
                .as("delivered once, not again")
                .hasSize(1);
        assertThat(f.admin.get("/metrics").text()).containsPattern("hourglass_results_quarantined_total\\S* 1\\.0");
        ids.forEach(id -> assertThat(f.receiver.receivedFor(id)).hasSize(1));
    }
}
