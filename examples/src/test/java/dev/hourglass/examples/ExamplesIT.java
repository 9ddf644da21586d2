package dev.hourglass.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.NodeProcess;
import dev.hourglass.node.testing.TestKafka;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every example of {@code examples/} run as its README line says: a JVM of its own on the examples'
 * class path, with the arguments a user would give, beside a standalone node run from its jar. Each
 * one must take a job of its channel and see it to FINISHED, printing the line it promises.
 */
@Tag("alongside") // waits on deliveries, not on how soon: may share the machine
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ExamplesIT {
    private static final String SECRET = "examples-signing-secret-0123456789abc";

    @TempDir
    static Path dir;

    private static KafkaClusterTestKit kafka;
    private static NodeProcess node;
    private static ApiClient shop;
    private static String shopToken;

    private static final List<Process> examples = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        kafka = TestKafka.start();
        TestKafka.createTopic(kafka, "shop.orders-close", 1);
        node = NodeProcess.startStandalone( // kept before awaiting it, so stop() ends it whatever happens
                "examples",
                dir.resolve("data"),
                "cluster:\n  kafkaBootstrap: \"" + kafka.bootstrapServers() + "\"\n",
                true);
        node.awaitReady();
        ApiClient.Answer app = node.admin().post("/api/v1/apps", "{\"name\":\"shop\"}");
        assertThat(app.status()).as(app.text()).isEqualTo(201);
        shopToken = app.json().get("token").asText();
        shop = new ApiClient(node.baseUrl(), shopToken);
    }

    /**
     * Waits for the examples stopped after each test: a PullConsumer's graceful stop waits for its
     * long poll (up to 20 s), which the later tests overlap.
     */
    @AfterAll
    static void stop() throws Exception {
        List<String> hung = new ArrayList<>();
        try {
            for (Process p : examples) {
                if (!p.waitFor(40, TimeUnit.SECONDS)) {
                    hung.add(p.info().toString());
                }
            }
        } finally {
            examples.forEach(Process::destroyForcibly); // no-op for those that ended
            if (node != null) {
                node.close();
            }
            if (kafka != null) {
                kafka.close();
            }
        }
        assertThat(hung).as("examples still running 40 s after SIGTERM").isEmpty();
    }

    /** SIGTERM, as Ctrl-C: the example's shutdown hook runs; {@link #stop()} waits for it. */
    @AfterEach
    void stopExample() {
        if (!examples.isEmpty()) {
            examples.get(examples.size() - 1).destroy();
        }
    }

    @Test
    void httpCallbackExample() throws Exception {
        int port = NodeProcess.freePort();
        Path out = run("HttpCallbackExample", Integer.toString(port), SECRET);
        awaitListening(port);
        service(
                "close-order-http",
                "{\"protocol\":\"HTTP\",\"url\":\"http://127.0.0.1:" + port + "/close\",\"signingSecret\":\"" + SECRET
                        + "\"}");
        assertDelivered("close-order-http", "order-1-close", out);
    }

    @Test
    void dubboCallbackExample() throws Exception {
        int port = NodeProcess.freePort();
        Path out = run("DubboCallbackExample", "none", Integer.toString(port));
        awaitOutput(out, "exported at dubbo://127.0.0.1:" + port);
        service(
                "close-order-dubbo",
                "{\"protocol\":\"DUBBO\",\"url\":\"dubbo://127.0.0.1:" + port
                        + "\",\"dubboGroup\":\"shop\",\"dubboVersion\":\"1.0\"}");
        assertDelivered("close-order-dubbo", "order-2-close", out);
    }

    @Test
    void kafkaConsumerExample() throws Exception {
        service(
                "close-order-kafka",
                "{\"protocol\":\"KAFKA\",\"topic\":\"shop.orders-close\",\"ackMode\":\"CONSUMER\"}");
        Path out =
                run("KafkaConsumerExample", kafka.bootstrapServers(), "shop.orders-close", node.baseUrl(), shopToken);
        assertDelivered("close-order-kafka", "order-3-close", out);
    }

    @Test
    @Order(1) // first: its graceful stop, which waits for its long poll, overlaps the others
    void pullConsumerExample() throws Exception {
        service("order-close", "{\"protocol\":\"PULL\"}");
        Path out = run("PullConsumerExample", node.baseUrl(), shopToken);
        assertDelivered("order-close", "order-4-close", out);
    }

    private static void service(String name, String body) {
        ApiClient.Answer a = shop.put("/api/v1/services/" + name, body);
        assertThat(a.status()).as(a.text()).isEqualTo(200);
    }

    /** Submits a job due soon with {@code bizKey}: it must end FINISHED, and the example print that it closed the order. */
    private static void assertDelivered(String service, String bizKey, Path out) {
        ApiClient.Answer submitted = shop.post(
                "/api/v1/jobs",
                "{\"service\":\"" + service + "\",\"delayMs\":500,\"bizKey\":\"" + bizKey
                        + "\",\"payload\":{\"order\":\"" + bizKey + "\"}}");
        assertThat(submitted.status()).as(submitted.text()).isEqualTo(201);
        String id = submitted.json().get("id").asText();
        JsonNode job;
        try {
            job = await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(200))
                    .until(
                            () -> shop.get("/api/v1/jobs/" + id).json(),
                            j -> !j.path("state").asText().matches("DELAYED|RUNNING"));
        } catch (ConditionTimeoutException e) {
            // with the example's own account of the wait, which is gone with the CI machine otherwise
            throw new AssertionError("job " + id + " did not end; the example printed:\n" + output(out), e);
        }
        assertThat(job.path("state").asText())
                .as("%s; the example printed:%n%s", job, output(out))
                .isEqualTo("FINISHED");
        awaitOutput(out, "closing order " + bizKey);
    }

    private static String output(Path out) {
        try {
            return Files.readString(out);
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    private static void awaitListening(int port) {
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    try (java.net.Socket s = new java.net.Socket(InetAddress.getLoopbackAddress(), port)) {
                        return true;
                    } catch (IOException notYet) {
                        return false;
                    }
                });
    }

    private static void awaitOutput(Path out, String text) {
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> assertThat(Files.readString(out)).contains(text));
    }

    /** Starts an example in a JVM of its own on the examples' class path; its output goes to a file. */
    private static Path run(String example, String... args) throws IOException {
        String classpath = Path.of("target", "classes").toAbsolutePath()
                + java.io.File.pathSeparator
                + Files.readString(Path.of("target", "examples-classpath.txt")).trim();
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                classpath,
                "dev.hourglass.examples." + example));
        command.addAll(List.of(args));
        Path out = Path.of("target", "example-" + example + ".log"); // kept, to read after a failure
        Process p = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(out.toFile())
                .start();
        examples.add(p);
        return out;
    }
}
