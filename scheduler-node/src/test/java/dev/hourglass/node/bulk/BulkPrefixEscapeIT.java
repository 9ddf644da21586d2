package dev.hourglass.node.bulk;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.InProcessCluster;
import dev.hourglass.node.testing.RunsAlongside;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A bulk action's {@code bizKeyPrefix} is matched literally whatever the server's SQL mode: the
 * node's sessions here run with {@code NO_BACKSLASH_ESCAPES}, under which a LIKE pattern escaped
 * with backslashes would let {@code _} match any character (the statement names its own escape
 * character instead).
 */
@RunsAlongside
class BulkPrefixEscapeIT {
    private static final String MODE = "&sessionVariables=sql_mode=NO_BACKSLASH_ESCAPES";
    InProcessCluster cluster;

    @AfterEach
    void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void underscoreInAPrefixIsLiteralWithNoBackslashEscapes() throws Exception {
        cluster = InProcessCluster.start(1, (i, c) -> {
            c.dubbo.enabled = false;
            c.database.url += MODE;
        });
        ApiClient shop = cluster.newApp("shop");
        // no delivery happens: the jobs are an hour away
        assertThat(shop.put("/api/v1/services/close", "{\"protocol\":\"HTTP\",\"url\":\"http://127.0.0.1:9/\"}")
                        .status())
                .isEqualTo(200);
        String nodeUrl = cluster.jdbcUrl() + MODE;
        try (var c = java.sql.DriverManager.getConnection(nodeUrl, "root", "");
                var r = c.createStatement().executeQuery("SELECT @@session.sql_mode")) {
            r.next();
            assertThat(r.getString(1)).as("the sessions of the node's URL").contains("NO_BACKSLASH_ESCAPES");
        }
        for (String key : new String[] {"a_1", "a_2", "aX1", "b_1"}) {
            assertThat(shop.post(
                                    "/api/v1/jobs",
                                    "{\"service\":\"close\",\"delayMs\":3600000,\"bizKey\":\"" + key + "\"}")
                            .status())
                    .as(key)
                    .isEqualTo(201);
        }
        JsonNode underscore = shop.post(
                        "/api/v1/jobs/bulk", "{\"action\":\"CANCEL\",\"bizKeyPrefix\":\"a_\",\"dryRun\":true}")
                .json();
        assertThat(underscore.get("matched").asLong())
                .as("a_1 and a_2, not aX1")
                .isEqualTo(2);
        JsonNode canceled = shop.post("/api/v1/jobs/bulk", "{\"action\":\"CANCEL\",\"bizKeyPrefix\":\"a_\"}")
                .json();
        assertThat(canceled.get("changed").asLong()).isEqualTo(2);
        assertThat(shop.get("/api/v1/jobs?bizKey=aX1")
                        .json()
                        .get("items")
                        .get(0)
                        .get("state")
                        .asText())
                .isEqualTo("DELAYED");
    }
}
