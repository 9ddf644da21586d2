package dev.hourglass.node.tenant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hourglass.api.CallbackResult;
import dev.hourglass.node.boot.HourglassNode;
import dev.hourglass.node.config.NodeConfig;
import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.EmbeddedMariaDb;
import dev.hourglass.node.testing.RunsAlongside;
import dev.hourglass.node.testing.TestNodes;
import dev.hourglass.node.testing.ZooKeeperLeftovers;
import dev.hourglass.sdk.dubbo.CallbackExporter;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Tenant isolation of delivery targets on a real node (MariaDB, ZooKeeper, a Dubbo provider; a
 * Kafka bootstrap address so that KAFKA services are accepted, on which no broker listens: no test
 * here publishes, and a broker cost the class seconds of start): by default an app reaches only the
 * Kafka topics and Dubbo groups named after it; the admin grants more; a refused service is a 400
 * naming the field and writes nothing; a withdrawn grant stops deliveries with an ERROR attempt.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@RunsAlongside
class DeliveryTargetsIT {
    private static final AtomicInteger APPS = new AtomicInteger();

    TestingServer zookeeper;
    HourglassNode node;
    ApiClient admin;

    @BeforeAll
    void start() throws Exception {
        zookeeper = new TestingServer(true);
        NodeConfig config = TestNodes.config(EmbeddedMariaDb.newDatabase());
        config.cluster.zkConnect = zookeeper.getConnectString();
        config.cluster.kafkaBootstrap = "127.0.0.1:" + freePort();
        node = TestNodes.start(config);
        admin = new ApiClient(node.baseUrl(), TestNodes.ADMIN_TOKEN);
    }

    @AfterAll
    void stop() throws Exception {
        node.close();
        zookeeper.close();
        ZooKeeperLeftovers.delete();
    }

    /** A new app named {@code <prefix><n>} (unique per call); its token's client. */
    private ApiClient newApp(String name) {
        ApiClient.Answer created = admin.post("/api/v1/apps", "{\"name\":\"" + name + "\"}");
        assertThat(created.status()).as(created.text()).isEqualTo(201);
        return admin.as(created.json().get("token").asText());
    }

    private static String unique(String prefix) {
        return prefix + APPS.incrementAndGet();
    }

    private static ApiClient.Answer kafkaService(ApiClient app, String name, String topic) {
        return app.put("/api/v1/services/" + name, "{\"protocol\":\"KAFKA\",\"topic\":\"" + topic + "\"}");
    }

    private static ApiClient.Answer dubboService(ApiClient app, String name, String group) {
        return app.put(
                "/api/v1/services/" + name,
                "{\"protocol\":\"DUBBO\"" + (group == null ? "" : ",\"dubboGroup\":\"" + group + "\"")
                        + ",\"dubboVersion\":\"1.0\"}");
    }

    private static void refused(ApiClient.Answer a, String field) {
        assertThat(a.status()).as(a.text()).isEqualTo(400);
        assertThat(a.errorCode()).isEqualTo("INVALID_ARGUMENT");
        assertThat(a.errorField()).isEqualTo(field);
    }

    private static int services(ApiClient app) {
        return app.get("/api/v1/services").json().get("items").size();
    }

    @Test
    void byDefaultAnAppReachesOnlyTheTopicsAndGroupsNamedAfterIt() {
        String shop = unique("shop");
        String billing = unique("billing");
        ApiClient a = newApp(shop);
        newApp(billing);

        refused(kafkaService(a, "steal", billing + ".invoices"), "topic");
        refused(kafkaService(a, "steal", billing), "topic");
        refused(dubboService(a, "steal", billing), "dubboGroup");
        refused(dubboService(a, "steal", billing + "-v2"), "dubboGroup");
        // no group is Dubbo's default group, shared by every provider that names none
        refused(dubboService(a, "steal", null), "dubboGroup");
        assertThat(a.get("/api/v1/services/steal").status()).isEqualTo(404);
        assertThat(services(a)).as("nothing written on refusal").isZero();

        assertThat(kafkaService(a, "own1", shop).status()).isEqualTo(200);
        assertThat(kafkaService(a, "own2", shop + ".orders.close").status()).isEqualTo(200);
        assertThat(kafkaService(a, "own3", shop + "-events").status()).isEqualTo(200);
        assertThat(dubboService(a, "own4", shop).status()).isEqualTo(200);
        assertThat(dubboService(a, "own5", shop + "-v2").status()).isEqualTo(200);
        assertThat(services(a)).isEqualTo(5);
    }

    @Test
    void aNameBelongsToTheLongestAppNameItStartsWith() {
        String shop = unique("shop");
        ApiClient a = newApp(shop);
        ApiClient eu = newApp(shop + "-eu");
        // "<shop>-eu.orders" starts with "<shop>-" but belongs to the app "<shop>-eu"
        refused(kafkaService(a, "eu-orders", shop + "-eu.orders"), "topic");
        refused(dubboService(a, "eu-orders", shop + "-eu"), "dubboGroup");
        assertThat(kafkaService(eu, "orders", shop + "-eu.orders").status()).isEqualTo(200);
        assertThat(kafkaService(a, "europe", shop + "-europe").status())
                .as("not the name of another app")
                .isEqualTo(200);
    }

    @Test
    void theAdminGrantsAnAppMoreTargets() {
        String shop = unique("shop");
        String billing = unique("billing");
        ApiClient a = newApp(shop);
        newApp(billing);
        assertThat(admin.get("/api/v1/apps/" + shop + "/targets").json().toString())
                .isEqualTo("{\"app\":\"" + shop + "\",\"kafkaTopics\":[],\"dubboGroups\":[],"
                        + "\"dubboDefaultGroup\":false}");

        ApiClient.Answer granted = admin.put(
                "/api/v1/apps/" + shop + "/targets",
                "{\"kafkaTopics\":[\"" + billing + ".*\",\"audit\"],\"dubboGroups\":[\"" + billing
                        + "\"],\"dubboDefaultGroup\":true}");
        assertThat(granted.status()).as(granted.text()).isEqualTo(200);
        JsonNode targets = admin.get("/api/v1/apps/" + shop + "/targets").json();
        assertThat(targets).isEqualTo(granted.json());
        assertThat(targets.get("kafkaTopics").toString()).as("sorted").isEqualTo("[\"audit\",\"" + billing + ".*\"]");
        assertThat(targets.get("dubboDefaultGroup").asBoolean()).isTrue();

        assertThat(kafkaService(a, "invoices", billing + ".invoices").status()).isEqualTo(200);
        assertThat(kafkaService(a, "audit", "audit").status()).isEqualTo(200);
        refused(kafkaService(a, "audit2", "audit.x"), "topic");
        assertThat(dubboService(a, "charge", billing).status()).isEqualTo(200);
        assertThat(dubboService(a, "anyone", null).status()).isEqualTo(200);
        refused(dubboService(a, "charge2", billing + "-v2"), "dubboGroup");
        assertThat(services(a)).isEqualTo(4);
    }

    @Test
    void onlyTheAdminManagesTargetsAndBadPatternsChangeNothing() {
        String shop = unique("shop");
        ApiClient a = newApp(shop);
        String path = "/api/v1/apps/" + shop + "/targets";
        assertThat(admin.put(path, "{\"kafkaTopics\":[\"" + shop + "x.*\"]}").status())
                .isEqualTo(200);
        String before = admin.get(path).text();

        ApiClient.Answer byApp = a.put(path, "{\"kafkaTopics\":[\"*\"]}");
        assertThat(byApp.status()).isEqualTo(403);
        assertThat(byApp.errorCode()).isEqualTo("PERMISSION_DENIED");
        assertThat(a.get(path).status()).isEqualTo(403);
        assertThat(admin.as("hg_nobody").put(path, "{}").status()).isEqualTo(401);
        assertThat(admin.put("/api/v1/apps/nosuchapp/targets", "{}").status()).isEqualTo(404);
        assertThat(admin.get("/api/v1/apps/nosuchapp/targets").status()).isEqualTo(404);

        refused(admin.put(path, "{\"kafkaTopics\":[\"has space\"]}"), "kafkaTopics");
        refused(admin.put(path, "{\"kafkaTopics\":[\"" + "t".repeat(250) + "\"]}"), "kafkaTopics");
        refused(admin.put(path, "{\"kafkaTopics\":[\"\"]}"), "kafkaTopics");
        refused(admin.put(path, "{\"kafkaTopics\":\"" + shop + ".*\"}"), "kafkaTopics");
        refused(admin.put(path, "{\"kafkaTopics\":[7]}"), "kafkaTopics");
        refused(admin.put(path, "{\"dubboGroups\":[\"a,b\"]}"), "dubboGroups");
        refused(admin.put(path, "{\"dubboGroups\":[\"g\"],\"dubboDefaultGroup\":\"yes\"}"), "dubboDefaultGroup");
        refused(admin.put(path, "{\"kafkaTopic\":[\"x\"]}"), "kafkaTopic");
        assertThat(admin.get(path).text()).as("grants after refused changes").isEqualTo(before);
    }

    @Test
    void aWithdrawnGrantStopsDeliveriesWithAnErrorAttempt() throws Exception {
        String shop = unique("shop");
        String billing = unique("billing");
        ApiClient a = newApp(shop);
        newApp(billing);
        List<String> received = new CopyOnWriteArrayList<>();
        try (CallbackExporter provider = CallbackExporter.of(request -> {
                    received.add(request.getJobId());
                    return CallbackResult.success();
                })
                .group(billing)
                .version("1.0")
                .registry("zookeeper://" + zookeeper.getConnectString())
                .host("127.0.0.1")
                .port(freePort())
                .start()) {
            String path = "/api/v1/apps/" + shop + "/targets";
            assertThat(admin.put(path, "{\"dubboGroups\":[\"" + billing + "\"]}")
                            .status())
                    .isEqualTo(200);
            assertThat(a.put(
                                    "/api/v1/services/charge",
                                    "{\"protocol\":\"DUBBO\",\"dubboGroup\":\"" + billing
                                            + "\",\"dubboVersion\":\"1.0\",\"maxAttempts\":1}")
                            .status())
                    .isEqualTo(200);
            String delivered = submit(a, "charge");
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> state(a, delivered).equals("FINISHED"));
            assertThat(received).containsExactly(delivered);

            // withdrawn: the service stays, its deliveries are refused before anything is sent
            assertThat(admin.put(path, "{}").status()).isEqualTo(200);
            String refused = submit(a, "charge");
            await().atMost(Duration.ofSeconds(30)).until(() -> state(a, refused).equals("FAILED"));
            JsonNode attempt = a.get("/api/v1/jobs/" + refused + "/executions")
                    .json()
                    .get("items")
                    .get(0);
            assertThat(attempt.get("outcome").asText()).isEqualTo("ERROR");
            assertThat(attempt.get("message").asText()).contains("dubboGroup " + billing, "not allowed");
            assertThat(received).containsExactly(delivered);
            assertThat(a.get("/api/v1/services/charge").status()).isEqualTo(200);
        }
    }

    private static String submit(ApiClient app, String service) {
        ApiClient.Answer a = app.post("/api/v1/jobs", "{\"service\":\"" + service + "\",\"delayMs\":100}");
        assertThat(a.status()).as(a.text()).isEqualTo(201);
        return a.json().get("id").asText();
    }

    private static String state(ApiClient app, String id) {
        return app.get("/api/v1/jobs/" + id).json().get("state").asText();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
