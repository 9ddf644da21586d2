package dev.hourglass.node.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hourglass.api.CallbackResult;
import dev.hourglass.api.DelayJobService;
import dev.hourglass.api.JobSubmission;
import dev.hourglass.api.JobView;
import dev.hourglass.node.dubbo.DubboNode;
import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.CallbackReceiver;
import dev.hourglass.node.testing.CallbackReceiver.Received;
import dev.hourglass.node.testing.RunsAlongside;
import dev.hourglass.node.testing.TestKafka;
import dev.hourglass.sdk.dubbo.CallbackExporter;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.dubbo.rpc.RpcContext;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The W3C trace context of a submit (HTTP headers, Dubbo attachments) is kept with the job and sent
 * with each delivery under the W3C names, on every channel: HTTP callback headers, Kafka record
 * headers, Dubbo attachments, and a PULL reservation's attributes (docs/api.md, "Trace context").
 * Real peers: a Kafka broker, a Dubbo provider exported with the SDK, an HTTP receiver.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@RunsAlongside
class TraceContextIT {
    static final String PARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    static final String STATE = "vendor=opaque,other=1";
    static final Map<String, String> TRACE_HEADERS = Map.of("traceparent", PARENT, "tracestate", STATE);

    KafkaClusterTestKit kafka;
    DubboNode hg;
    CallbackReceiver receiver;
    CallbackExporter provider;
    /** What the Dubbo provider saw: job id, then the attachments traceparent and tracestate. */
    final Queue<String[]> providerSaw = new ConcurrentLinkedQueue<>();

    @BeforeAll
    void start() throws Exception {
        kafka = TestKafka.start();
        TestKafka.createTopic(kafka, "shop.traced", 1);
        hg = new DubboNode(c -> c.cluster.kafkaBootstrap = kafka.bootstrapServers());
        receiver = new CallbackReceiver();
        provider = CallbackExporter.of(request -> {
                    var attachments = RpcContext.getServerAttachment();
                    providerSaw.add(new String[] {
                        request.getJobId(),
                        attachments.getAttachment("traceparent"),
                        attachments.getAttachment("tracestate")
                    });
                    return CallbackResult.success();
                })
                .group("shop")
                .version("1.0")
                .registry(hg.registry())
                .host("127.0.0.1")
                .port(freePort())
                .start();
        put("web", "{\"protocol\":\"HTTP\",\"url\":\"" + receiver.url() + "\"}");
        put("bus", "{\"protocol\":\"KAFKA\",\"topic\":\"shop.traced\"}");
        put("rpc", "{\"protocol\":\"DUBBO\",\"dubboGroup\":\"shop\",\"dubboVersion\":\"1.0\",\"timeoutMs\":5000}");
        put("queue", "{\"protocol\":\"PULL\"}");
    }

    @AfterAll
    void stop() throws Exception {
        if (provider != null) {
            provider.close();
        }
        if (receiver != null) {
            receiver.close();
        }
        if (hg != null) {
            hg.close();
        }
        if (kafka != null) {
            kafka.close();
        }
    }

    private void put(String service, String definition) {
        ApiClient.Answer a = hg.app.put("/api/v1/services/" + service, definition);
        assertThat(a.status()).as(a.text()).isEqualTo(200);
    }

    private JsonNode submit(String body, Map<String, String> headers) {
        ApiClient.Answer a = hg.app.send("POST", "/api/v1/jobs", body, headers);
        assertThat(a.status()).as(a.text()).isEqualTo(201);
        return a.json();
    }

    private Received deliveredOverHttp(String jobId) {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> !receiver.receivedFor(jobId).isEmpty());
        return receiver.receivedFor(jobId).get(0);
    }

    @Test
    void anHttpSubmitsTraceGoesWithItsHttpCallback() {
        JsonNode job = submit("{\"service\":\"web\",\"delayMs\":0,\"attributes\":{\"tenant\":\"eu\"}}", TRACE_HEADERS);
        assertThat(job.get("attributes").get("tenant").asText()).isEqualTo("eu");
        assertThat(job.get("attributes").get("hourglass-traceparent").asText()).isEqualTo(PARENT);
        assertThat(job.get("attributes").get("hourglass-tracestate").asText()).isEqualTo(STATE);

        Received r = deliveredOverHttp(job.get("id").asText());
        assertThat(r.headers()).containsEntry("traceparent", PARENT).containsEntry("tracestate", STATE);
    }

    @Test
    void aDubboSubmitsTraceGoesWithItsKafkaRecord() throws Exception {
        try (DubboNode.PlainClient client = hg.plainClient("traced-client", 10_000);
                KafkaConsumer<byte[], byte[]> consumer = TestKafka.consumer(kafka, "shop.traced")) {
            var attachments = RpcContext.getClientAttachment();
            attachments.setAttachment(DelayJobService.TOKEN_ATTACHMENT, hg.appToken);
            attachments.setAttachment("traceparent", PARENT);
            attachments.setAttachment("tracestate", STATE);
            JobView job = client.service()
                    .submit(new JobSubmission().setService("bus").setDelayMs(0L).setPayload("{\"n\":1}"));
            assertThat(job.getAttributes())
                    .containsEntry("hourglass-traceparent", PARENT)
                    .containsEntry("hourglass-tracestate", STATE);

            ConsumerRecord<byte[], byte[]> record = recordOf(consumer, job.getId());
            assertThat(header(record, "traceparent")).isEqualTo(PARENT);
            assertThat(header(record, "tracestate")).isEqualTo(STATE);
            assertThat(header(record, "hourglass-attr-hourglass-traceparent")).isEqualTo(PARENT);
        }
    }

    private static ConsumerRecord<byte[], byte[]> recordOf(KafkaConsumer<byte[], byte[]> consumer, String jobId) {
        ConsumerRecord<byte[], byte[]>[] found = new ConsumerRecord[1];
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                if (jobId.equals(header(r, "hourglass-job-id"))) {
                    found[0] = r;
                }
            }
            return found[0] != null;
        });
        return found[0];
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    @Test
    void anHttpBatchsTraceGoesWithEachOfItsJobsToTheDubboProviderAndNoOtherJobGetsIt() {
        ApiClient.Answer batch = hg.app.send(
                "POST",
                "/api/v1/jobs/batch",
                "{\"jobs\":[{\"service\":\"rpc\",\"delayMs\":0},{\"service\":\"rpc\",\"delayMs\":0}]}",
                Map.of("traceparent", PARENT));
        assertThat(batch.status()).as(batch.text()).isEqualTo(200);
        List<String> traced = batch.json().get("results").findValues("job").stream()
                .map(j -> j.get("id").asText())
                .toList();
        assertThat(traced).hasSize(2);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> seenByProvider(traced.get(0)) != null && seenByProvider(traced.get(1)) != null);
        for (String id : traced) {
            assertThat(seenByProvider(id)[1]).as("traceparent of job %s", id).isEqualTo(PARENT);
            assertThat(seenByProvider(id)[2]).as("no tracestate was sent").isNull();
        }

        // then a job submitted outside any trace: the dispatcher's earlier context is not reused
        String untraced = submit("{\"service\":\"rpc\",\"delayMs\":0}", Map.of())
                .get("id")
                .asText();
        await().atMost(Duration.ofSeconds(30)).until(() -> seenByProvider(untraced) != null);
        assertThat(seenByProvider(untraced)[1]).isNull();
    }

    private String[] seenByProvider(String jobId) {
        return providerSaw.stream().filter(s -> s[0].equals(jobId)).findFirst().orElse(null);
    }

    @Test
    void aPullConsumerReservesTheJobWithItsTrace() {
        String id = submit("{\"service\":\"queue\",\"delayMs\":0}", TRACE_HEADERS)
                .get("id")
                .asText();
        ApiClient.Answer reserved =
                hg.app.post("/api/v1/reserve", "{\"services\":[\"queue\"],\"max\":1,\"waitMs\":10000}");
        assertThat(reserved.status()).as(reserved.text()).isEqualTo(200);
        JsonNode item = reserved.json().get("items").get(0);
        assertThat(item.get("id").asText()).isEqualTo(id);
        assertThat(item.get("attributes").get("hourglass-traceparent").asText()).isEqualTo(PARENT);
        assertThat(item.get("attributes").get("hourglass-tracestate").asText()).isEqualTo(STATE);
    }

    @Test
    void aMalformedTraceparentIsIgnoredAndTheJobTakenAsAnyOther() {
        JsonNode job = submit(
                "{\"service\":\"web\",\"delayMs\":0}",
                Map.of("traceparent", "00-00000000000000000000000000000000-00f067aa0ba902b7-01", "tracestate", STATE));
        assertThat(job.get("attributes").size()).isZero();
        Received r = deliveredOverHttp(job.get("id").asText());
        assertThat(r.headers()).doesNotContainKeys("traceparent", "tracestate");
    }

    @Test
    void aRescheduleThatReplacesTheAttributesKeepsTheTrace() {
        String id = submit(
                        "{\"service\":\"web\",\"delayMs\":600000,\"attributes\":{\"tenant\":\"eu\"}}",
                        Map.of("traceparent", PARENT))
                .get("id")
                .asText();
        ApiClient.Answer changed =
                hg.app.patch("/api/v1/jobs/" + id, "{\"delayMs\":0,\"attributes\":{\"region\":\"us\"}}");
        assertThat(changed.status()).as(changed.text()).isEqualTo(200);
        JsonNode attributes = changed.json().get("attributes");
        assertThat(attributes.has("tenant"))
                .as("the client's attributes are replaced")
                .isFalse();
        assertThat(attributes.get("region").asText()).isEqualTo("us");
        assertThat(attributes.get("hourglass-traceparent").asText()).isEqualTo(PARENT);
        assertThat(deliveredOverHttp(id).headers()).containsEntry("traceparent", PARENT);
    }

    @Test
    void aClientCannotSetTheTraceAttributesItself() {
        ApiClient.Answer refused = hg.app.post(
                "/api/v1/jobs",
                "{\"service\":\"web\",\"delayMs\":0,\"attributes\":{\"hourglass-traceparent\":\"" + PARENT + "\"}}");
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.errorField()).isEqualTo("attributes");
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
