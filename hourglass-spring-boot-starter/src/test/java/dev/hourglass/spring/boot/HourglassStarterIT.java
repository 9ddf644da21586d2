package dev.hourglass.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hourglass.api.CallbackRequest;
import dev.hourglass.api.CallbackResult;
import dev.hourglass.api.JobCallbackService;
import dev.hourglass.api.JobState;
import dev.hourglass.api.JobSubmission;
import dev.hourglass.api.JobView;
import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.NodeProcess;
import dev.hourglass.sdk.HourglassClient;
import dev.hourglass.sdk.kafka.HourglassRecord;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.servlet.context.ServletWebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * The starter in a real Spring Boot application (Tomcat, Actuator, Spring Kafka), against a real
 * node run from its jar and a real Kafka broker: the client bean submits, the node calls the
 * application's callback endpoint and publishes to its listener, the listener's results are
 * reported, and Actuator shows the node's health and the client's meters.
 */
@Tag("alongside") // waits on deliveries, not on how soon: may share the machine
class HourglassStarterIT {
    private static final String SECRET = "starter-test-signing-secret-0123456789";
    private static final String TOPIC = "shop.orders-close";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;

    private static EmbeddedKafkaBroker kafka;
    private static NodeProcess node;
    private static ConfigurableApplicationContext app;
    private static HourglassClient client;
    private static int appPort;

    /** What the application's beans received: the callbacks and the records. */
    static final List<CallbackRequest> callbacks = new CopyOnWriteArrayList<>();

    static final List<HourglassRecord> records = new CopyOnWriteArrayList<>();

    /** A business service as its developers write it, with nothing of Hourglass but beans and properties. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Shop {
        @Bean
        JobCallbackService closeOrder() {
            return request -> {
                callbacks.add(request);
                return request.getPayload().contains("unknown")
                        ? CallbackResult.fail("no such order")
                        : CallbackResult.success();
            };
        }

        @Bean
        OrderCloser orderCloser() {
            return new OrderCloser();
        }
    }

    /** A Kafka listener that takes the job as a parameter; it fails the first attempt of a "flaky" one. */
    static class OrderCloser {
        @KafkaListener(topics = TOPIC, groupId = "shop")
        void close(HourglassRecord job) {
            records.add(job);
            if (job.valueAsString().contains("flaky") && job.attempt() == 1) {
                throw new IllegalStateException("the order service is not ready yet");
            }
        }
    }

    @BeforeAll
    static void start() throws Exception {
        kafka = new EmbeddedKafkaKraftBroker(1, 1, TOPIC);
        kafka.afterPropertiesSet();
        node = NodeProcess.startStandalone( // kept before awaiting it, so stop() ends it whatever happens
                "starter",
                dir.resolve("data"),
                "cluster:\n  kafkaBootstrap: \"" + kafka.getBrokersAsString() + "\"\n",
                false);
        node.awaitReady();
        ApiClient admin = node.admin();
        ApiClient.Answer created = admin.post("/api/v1/apps", "{\"name\":\"shop\"}");
        assertThat(created.status()).as(created.text()).isEqualTo(201);
        String token = created.json().get("token").asText();

        app = new SpringApplicationBuilder(Shop.class)
                .properties(Map.ofEntries(
                        Map.entry("server.address", "127.0.0.1"),
                        Map.entry("server.port", "0"),
                        Map.entry("spring.main.banner-mode", "off"),
                        Map.entry("management.endpoints.web.exposure.include", "health,metrics"),
                        Map.entry("management.endpoint.health.show-components", "always"),
                        Map.entry("management.endpoint.health.show-details", "always"),
                        Map.entry("spring.kafka.bootstrap-servers", kafka.getBrokersAsString()),
                        Map.entry("spring.kafka.consumer.auto-offset-reset", "earliest"),
                        Map.entry("hourglass.base-urls", node.baseUrl()),
                        Map.entry("hourglass.token", token),
                        Map.entry("hourglass.callback.signing-secret", SECRET),
                        Map.entry("hourglass.callback.path", "/hourglass/callback"),
                        Map.entry("hourglass.kafka.report-results", "true")))
                .run();
        appPort = ((ServletWebServerApplicationContext) app).getWebServer().getPort();
        client = app.getBean(HourglassClient.class);

        ApiClient shop = new ApiClient(node.baseUrl(), token);
        ApiClient.Answer http = shop.put(
                "/api/v1/services/close-order",
                "{\"protocol\":\"HTTP\",\"url\":\"http://127.0.0.1:" + appPort + "/hourglass/callback\","
                        + "\"signingSecret\":\"" + SECRET + "\",\"maxAttempts\":1}");
        assertThat(http.status()).as(http.text()).isEqualTo(200);
        ApiClient.Answer kafkaService = shop.put(
                "/api/v1/services/close-order-kafka",
                "{\"protocol\":\"KAFKA\",\"topic\":\"" + TOPIC + "\",\"ackMode\":\"CONSUMER\",\"timeoutMs\":60000,"
                        + "\"maxAttempts\":3,\"backoff\":{\"initialMs\":200,\"multiplier\":1.0,\"maxMs\":200}}");
        assertThat(kafkaService.status()).as(kafkaService.text()).isEqualTo(200);
    }

    @AfterAll
    static void stop() throws Exception {
        if (app != null) {
            app.close();
        }
        if (node != null) {
            node.close();
        }
        if (kafka != null) {
            kafka.destroy();
        }
    }

    private static JobView awaitFinal(String jobId) {
        // a hang bound: the module's tests run at low priority beside the node's timed tests
        // (README, "Tests"), where a Kafka listener's job once took longer than 30 s
        return await().atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> client.get(jobId), job -> job.getState().isFinal());
    }

    @Test
    void theNodeCallsTheEndpointAtTheConfiguredPathAndTheBeanAnswers() {
        JobView ok = client.submit(new JobSubmission()
                .setService("close-order")
                .setDelayMs(200L)
                .setBizKey("order-42-close")
                .setPayload(client.toPayload(Map.of("order", 42))));
        JobView refused = client.submit(
                new JobSubmission().setService("close-order").setDelayMs(200L).setPayload("{\"order\":\"unknown\"}"));

        assertThat(awaitFinal(ok.getId()).getState()).isEqualTo(JobState.FINISHED);
        assertThat(awaitFinal(refused.getId()).getState())
                .as("the bean's FAIL came back through the endpoint")
                .isEqualTo(JobState.FAILED);
        CallbackRequest received = callbacks.stream()
                .filter(c -> c.getJobId().equals(ok.getId()))
                .findFirst()
                .orElseThrow();
        assertThat(received.getPayload()).isEqualTo("{\"order\":42}");
        assertThat(received.getBizKey()).isEqualTo("order-42-close");
    }

    @Test
    void aKafkaListenerTakesTheJobAsAParameterAndItsResultsAreReported() {
        JobView plain = client.submit(new JobSubmission()
                .setService("close-order-kafka")
                .setDelayMs(200L)
                .setBizKey("order-7-close")
                .setPayload("{\"order\":7}"));
        JobView flaky = client.submit(new JobSubmission()
                .setService("close-order-kafka")
                .setDelayMs(200L)
                .setPayload("{\"order\":8,\"note\":\"flaky\"}"));

        JobView plainDone = awaitFinal(plain.getId());
        assertThat(plainDone.getState())
                .as("SUCCESS reported when the listener returned")
                .isEqualTo(JobState.FINISHED);
        assertThat(plainDone.getAttempts()).isEqualTo(1);
        HourglassRecord first = records.stream()
                .filter(r -> r.jobId().equals(plain.getId()))
                .findFirst()
                .orElseThrow();
        assertThat(first.bizKey()).isEqualTo("order-7-close");
        assertThat(first.service()).isEqualTo("close-order-kafka");
        assertThat(first.valueAsString()).isEqualTo("{\"order\":7}");

        JobView flakyDone = awaitFinal(flaky.getId());
        assertThat(flakyDone.getState()).isEqualTo(JobState.FINISHED);
        assertThat(flakyDone.getAttempts())
                .as("RETRY reported when the listener threw; Hourglass sent it again")
                .isEqualTo(2);
        assertThat(records.stream()
                        .filter(r -> r.jobId().equals(flaky.getId()))
                        .map(HourglassRecord::attempt)
                        .toList())
                .as("each attempt ran once: the container did not run the failed one again")
                .containsExactly(1, 2);
    }

    @Test
    void actuatorShowsTheNodesHealthAndTheClientsMeters() throws Exception {
        client.submit(new JobSubmission()
                .setService("close-order")
                .setDelayMs(60_000L)
                .setPayload("{\"order\":1}"));
        ApiClient actuator = new ApiClient("http://127.0.0.1:" + appPort, "unused");

        JsonNode health = JSON.readTree(actuator.get("/actuator/health").text());
        assertThat(health.at("/components/hourglass/status").asText()).isEqualTo("UP");
        assertThat(health.at("/components/hourglass/details/baseUrl").asText()).isEqualTo(node.baseUrl() + "/");

        ApiClient.Answer meter = actuator.get("/actuator/metrics/hourglass.client.requests?tag=operation:submit");
        assertThat(meter.status()).as(meter.text()).isEqualTo(200);
        JsonNode count = JSON.readTree(meter.text()).at("/measurements/0");
        assertThat(count.get("statistic").asText()).isEqualTo("COUNT");
        assertThat(count.get("value").asDouble()).isGreaterThanOrEqualTo(1);
        assertThat(JSON.readTree(meter.text()).at("/availableTags").toString()).contains("SUCCESS");
    }
}
