package dev.hourglass.spring.boot.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.hourglass.sdk.HourglassClient;
import dev.hourglass.sdk.kafka.HourglassRecord;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.kafka.support.KafkaNull;
import org.springframework.messaging.support.MessageBuilder;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;

/**
 * The starter's Kafka parts on their own: the reporter against a real HTTP server standing in for
 * the node's result endpoint, the argument resolver on a message as Spring Kafka builds one.
 */
class HourglassKafkaPartsTest {
    private HttpServer server;
    private final List<String> posted = Collections.synchronizedList(new ArrayList<>());
    private volatile int status = 200;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            posted.add(exchange.getRequestURI() + " "
                    + new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            byte[] body = status == 200
                    ? "{}".getBytes(StandardCharsets.UTF_8)
                    : "{\"error\":{\"code\":\"CONFLICT\",\"message\":\"attempt 1 is not current\"}}"
                            .getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private HourglassClient client() {
        return HourglassClient.builder()
                .baseUrls("http://127.0.0.1:" + server.getAddress().getPort())
                .token("hg_test")
                .retries(1, Duration.ofMillis(10), Duration.ofMillis(10))
                .build();
    }

    /** A record as Hourglass publishes it, with a value the application's deserializer made. */
    private static ConsumerRecord<Object, Object> record(Object value) {
        ConsumerRecord<Object, Object> r = new ConsumerRecord<>("shop.orders-close", 0, 0, "order-7", value);
        headers().forEach((k, v) -> r.headers().add(k, v.getBytes(StandardCharsets.UTF_8)));
        return r;
    }

    private static Map<String, String> headers() {
        return Map.of(
                "hourglass-job-id", "7",
                "hourglass-app", "shop",
                "hourglass-service", "close-order",
                "hourglass-biz-key", "order-7",
                "hourglass-attempt", "2",
                "hourglass-fire-at", "1000",
                "hourglass-fired-at", "1001",
                "hourglass-attr-region", "eu");
    }

    record Order(long id) {}

    @Test
    void theReporterReportsWhateverTheValueIsAndNeverThrows() {
        HourglassResultReporter reporter = new HourglassResultReporter(client());
        reporter.success(record(new Order(7)), null); // a JSON deserializer's object
        reporter.failure(record("{}"), new RuntimeException(new IllegalStateException("not yet")), null);
        assertThat(posted)
                .containsExactly(
                        "/api/v1/jobs/7/result {\"attempt\":2,\"status\":\"SUCCESS\"}",
                        "/api/v1/jobs/7/result {\"attempt\":2,\"status\":\"RETRY\",\"message\":\"not yet\"}");

        status = 409;
        reporter.success(record(new Order(7)), null); // refused: logged, not thrown
        ConsumerRecord<Object, Object> notOurs = new ConsumerRecord<>("other", 0, 0, "k", "v");
        reporter.success(notOurs, null);
        assertThat(posted).as("the refused one sent, the foreign one not").hasSize(3);
    }

    @Test
    void theResolverReadsTheJobFromTheMessagesHeadersAndPayload() {
        HourglassRecordArgumentResolver resolver = new HourglassRecordArgumentResolver();
        var builder = MessageBuilder.withPayload((Object) "{\"order\":7}");
        headers().forEach((k, v) -> builder.setHeader(k, v.getBytes(StandardCharsets.UTF_8)));
        HourglassRecord job = (HourglassRecord) resolver.resolveArgument(null, builder.build());
        assertThat(job.jobId()).isEqualTo("7");
        assertThat(job.attempt()).isEqualTo(2);
        assertThat(job.bizKey()).isEqualTo("order-7");
        assertThat(job.attributes()).containsExactly(Map.entry("region", "eu"));
        assertThat(job.valueAsString()).isEqualTo("{\"order\":7}");

        var tombstone = MessageBuilder.withPayload((Object) KafkaNull.INSTANCE);
        headers().forEach(tombstone::setHeader); // a header mapper that gave text
        assertThat(((HourglassRecord) resolver.resolveArgument(null, tombstone.build())).value())
                .isNull();
    }

    @Test
    void aFailedHourglassRecordIsRunOnceAndAnyOtherAsSpringKafkaWould() {
        BackOff ours = HourglassKafkaAutoConfiguration.ReportResults.backOff(record("{}"), new IllegalStateException());
        assertThat(ours.start().nextBackOff()).as("no second run").isEqualTo(BackOffExecution.STOP);
        assertThat(HourglassKafkaAutoConfiguration.ReportResults.backOff(
                        new ConsumerRecord<>("other", 0, 0, "k", "v"), new IllegalStateException()))
                .as("another record: the handler's default back-off")
                .isNull();
    }
}
