package dev.hourglass.node.testing;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hourglass.node.boot.HourglassNode;
import dev.hourglass.node.config.NodeConfig;
import java.io.IOException;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A running node on a fresh MariaDB database, a callback receiver, and an app with its token: what
 * most integration tests start from.
 */
public final class NodeFixture implements AutoCloseable {
    private static final AtomicInteger SERVICES = new AtomicInteger();

    public final String jdbcUrl;
    public final CallbackReceiver receiver;
    public HourglassNode node;
    public ApiClient admin;
    public ApiClient app;
    public String appToken;

    private final java.util.function.Consumer<NodeConfig> tuning;

    public NodeFixture() throws IOException {
        this(c -> {});
    }

    /** A fixture whose node configuration {@code tuning} adjusts before the node starts. */
    public NodeFixture(java.util.function.Consumer<NodeConfig> tuning) throws IOException {
        this(EmbeddedMariaDb.newDatabase(), tuning);
    }

    /** A standalone node: embedded H2 and ZooKeeper in its data directory, as a new user runs it. */
    public static NodeFixture standalone() throws IOException {
        return standalone(c -> {});
    }

    /** A standalone node whose configuration {@code tuning} adjusts before it starts. */
    public static NodeFixture standalone(java.util.function.Consumer<NodeConfig> tuning) throws IOException {
        return new NodeFixture(null, tuning);
    }

    private NodeFixture(String jdbcUrl, java.util.function.Consumer<NodeConfig> tuning) throws IOException {
        this.tuning = tuning;
        this.jdbcUrl = jdbcUrl;
        this.receiver = new CallbackReceiver();
        startNode();
        ApiClient.Answer created = admin.post("/api/v1/apps", "{\"name\":\"shop\"}");
        if (created.status() != 201) {
            throw new IllegalStateException("app not created: " + created.text());
        }
        appToken = created.json().get("token").asText();
        app = admin.as(appToken);
    }

    public NodeConfig config() {
        NodeConfig c = TestNodes.config(jdbcUrl);
        tuning.accept(c);
        return c;
    }

    public void startNode() {
        startNode(config());
    }

    public void startNode(NodeConfig config) {
        node = TestNodes.start(config);
        admin = new ApiClient(node.baseUrl(), TestNodes.ADMIN_TOKEN);
        if (appToken != null) {
            app = admin.as(appToken);
        }
    }

    /** Registers an HTTP service pointing at the receiver; returns its name. */
    public String httpService(String extraJson) {
        String name = "svc-" + SERVICES.incrementAndGet();
        String body = "{\"protocol\":\"HTTP\",\"url\":\"" + receiver.url() + "\""
                + (extraJson == null || extraJson.isEmpty() ? "" : "," + extraJson) + "}";
        ApiClient.Answer a = app.put("/api/v1/services/" + name, body);
        if (a.status() != 200) {
            throw new IllegalStateException("service not created: " + a.text());
        }
        return name;
    }

    public JsonNode submit(String service, long delayMs, String extraJson) {
        String body = "{\"service\":\"" + service + "\",\"delayMs\":" + delayMs + ",\"payload\":{\"n\":1}"
                + (extraJson == null || extraJson.isEmpty() ? "" : "," + extraJson) + "}";
        ApiClient.Answer a = app.post("/api/v1/jobs", body);
        if (a.status() != 201) {
            throw new IllegalStateException("submit failed: " + a.text());
        }
        return a.json();
    }

    public JsonNode job(String id) {
        return app.get("/api/v1/jobs/" + id).json();
    }

    public String state(String id) {
        return job(id).get("state").asText();
    }

    public JsonNode executions(String id) {
        return app.get("/api/v1/jobs/" + id + "/executions").json().get("items");
    }

    public static long epochMs(JsonNode time) {
        return Instant.parse(time.asText()).toEpochMilli();
    }

    @Override
    public void close() {
        if (node != null) {
            node.close();
        }
        receiver.close();
    }
}
