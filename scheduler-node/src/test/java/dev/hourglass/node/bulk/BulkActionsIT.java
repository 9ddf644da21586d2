package dev.hourglass.node.bulk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.CallbackReceiver;
import dev.hourglass.node.testing.CallbackReceiver.Reply;
import dev.hourglass.node.testing.InProcessCluster;
import dev.hourglass.node.testing.RunsAlongside;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Bulk actions on a real node and MariaDB: a dry run counts and changes nothing, a run changes at
 * most {@code max} jobs and says whether more match, every job goes through the one-job path (its
 * state really changes), each run is audited, and bad requests change nothing.
 */
@RunsAlongside
class BulkActionsIT {
    InProcessCluster cluster;
    CallbackReceiver receiver;
    ApiClient shop;

    @BeforeEach
    void start() throws Exception {
        receiver = new CallbackReceiver();
        cluster = InProcessCluster.start(1, (i, c) -> c.dubbo.enabled = false); // HTTP only
        shop = cluster.newApp("shop");
        for (String service : new String[] {"close", "flaky"}) {
            assertThat(shop.put(
                                    "/api/v1/services/" + service,
                                    "{\"protocol\":\"HTTP\",\"url\":\"" + receiver.url() + "\",\"maxAttempts\":1}")
                            .status())
                    .isEqualTo(200);
        }
    }

    @AfterEach
    void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
        receiver.close();
    }

    private void submit(String service, String bizKeyPrefix, int n, long delayMs) {
        StringBuilder body = new StringBuilder("{\"jobs\":[");
        for (int i = 0; i < n; i++) {
            body.append(i == 0 ? "" : ",")
                    .append("{\"service\":\"")
                    .append(service)
                    .append("\",\"delayMs\":")
                    .append(delayMs)
                    .append(",\"bizKey\":\"")
                    .append(bizKeyPrefix)
                    .append(i)
                    .append("\"}");
        }
        assertThat(shop.post("/api/v1/jobs/batch", body.append("]}").toString()).status())
                .isEqualTo(200);
    }

    private int count(String query) {
        int total = 0;
        String cursor = null;
        do {
            JsonNode page = shop.get("/api/v1/jobs?limit=500&" + query + (cursor == null ? "" : "&cursor=" + cursor))
                    .json();
            total += page.get("items").size();
            cursor = page.get("nextCursor").isNull()
                    ? null
                    : page.get("nextCursor").asText();
        } while (cursor != null);
        return total;
    }

    private JsonNode bulk(String body) {
        ApiClient.Answer a = shop.post("/api/v1/jobs/bulk", body);
        assertThat(a.status()).as(a.text()).isEqualTo(200);
        return a.json();
    }

    @Test
    void cancelByBizKeyPrefixInBoundedAuditedRuns() {
        submit("close", "order-", 30, 3_600_000);
        submit("close", "refund-", 10, 3_600_000);
        submit("close", "order_x", 3, 3_600_000); // "_" is literal, not LIKE's any-character

        JsonNode dry = bulk("{\"action\":\"CANCEL\",\"bizKeyPrefix\":\"order-\",\"dryRun\":true}");
        assertThat(dry.get("matched").asLong()).isEqualTo(30);
        assertThat(dry.get("changed").asLong()).isZero();
        assertThat(dry.get("auditId").isNull()).isTrue();
        assertThat(count("state=DELAYED&service=close"))
                .as("a dry run changes nothing")
                .isEqualTo(43);

        JsonNode first = bulk("{\"action\":\"CANCEL\",\"bizKeyPrefix\":\"order-\",\"max\":20}");
        assertThat(first.get("changed").asLong()).isEqualTo(20);
        assertThat(first.get("more").asBoolean()).isTrue();
        JsonNode second = bulk("{\"action\":\"CANCEL\",\"bizKeyPrefix\":\"order-\",\"max\":20}");
        assertThat(second.get("changed").asLong()).isEqualTo(10);
        assertThat(second.get("more").asBoolean()).isFalse();
        assertThat(count("state=CANCELED&service=close")).isEqualTo(30);
        assertThat(count("state=DELAYED&service=close"))
                .as("refund-* and order_x* untouched")
                .isEqualTo(13);
        assertThat(shop.get("/api/v1/jobs?bizKey=order-7")
                        .json()
                        .get("items")
                        .get(0)
                        .get("state")
                        .asText())
                .isEqualTo("CANCELED");

        JsonNode audit = shop.get("/api/v1/audit").json().get("items");
        assertThat(audit).hasSize(2);
        assertThat(audit.get(0).get("id").asText())
                .isEqualTo(second.get("auditId").asText());
        assertThat(audit.get(0).get("actor").asText()).isEqualTo("app:shop");
        assertThat(audit.get(0).get("action").asText()).isEqualTo("CANCEL");
        assertThat(audit.get(0).get("changed").asLong()).isEqualTo(10);
        assertThat(audit.get(0).get("request").get("bizKeyPrefix").asText()).isEqualTo("order-");
        assertThat(cluster.newApp("other").get("/api/v1/audit").json().get("items"))
                .as("another app's audit")
                .isEmpty();
        assertThat(cluster.admin().get("/api/v1/audit").json().get("items")).hasSize(2);
    }

    @Test
    void retryEveryFailedJobOfAServiceThenTheyAreDelivered() {
        receiver.respond(r -> Reply.status(500));
        submit("flaky", "f-", 5, 0);
        await().atMost(Duration.ofSeconds(30)).until(() -> count("state=FAILED&service=flaky") == 5);
        receiver.respond(r -> Reply.ok());

        JsonNode run = bulk("{\"action\":\"RETRY\",\"service\":\"flaky\"}");
        assertThat(run.get("state").asText()).isEqualTo("FAILED");
        assertThat(run.get("changed").asLong()).isEqualTo(5);
        await().atMost(Duration.ofSeconds(30)).until(() -> count("state=FINISHED&service=flaky") == 5);
        assertThat(receiver.received()).hasSize(10); // 5 failed attempts, then 5 that succeeded
    }

    @Test
    void badRequestsAreRefusedAndChangeNothing() {
        submit("close", "keep-", 5, 3_600_000);
        String[][] cases = {
            {"{\"action\":\"CANCEL\"}", "service"},
            {"{\"action\":\"DELETE\",\"service\":\"close\"}", "action"},
            {"{\"service\":\"close\"}", "action"},
            {"{\"action\":\"CANCEL\",\"service\":\"close\",\"max\":0}", "max"},
            {"{\"action\":\"CANCEL\",\"service\":\"close\",\"max\":100001}", "max"},
            {"{\"action\":\"RETRY\",\"service\":\"close\",\"state\":\"FINISHED\"}", "state"},
            {"{\"action\":\"CANCEL\",\"service\":\"close\",\"state\":\"FAILED\"}", "state"},
            {"{\"action\":\"CANCEL\",\"bizKeyPrefix\":\"a b\"}", "bizKeyPrefix"},
            {"{\"action\":\"CANCEL\",\"service\":\"close\",\"fireFrom\":\"yesterday\"}", "fireFrom"},
            {"{\"action\":\"CANCEL\",\"service\":\"close\",\"everything\":true}", "everything"},
        };
        for (String[] c : cases) {
            ApiClient.Answer a = shop.post("/api/v1/jobs/bulk", c[0]);
            assertThat(a.status()).as(c[0]).isEqualTo(400);
            assertThat(a.errorField()).as(c[0]).isEqualTo(c[1]);
        }
        assertThat(count("state=DELAYED&service=close")).isEqualTo(5);
        assertThat(shop.get("/api/v1/audit").json().get("items"))
                .as("refusals are not audited")
                .isEmpty();
    }
}
