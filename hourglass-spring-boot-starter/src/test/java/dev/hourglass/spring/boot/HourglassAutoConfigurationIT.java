package dev.hourglass.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import dev.hourglass.api.CallbackRequest;
import dev.hourglass.api.CallbackResult;
import dev.hourglass.api.CallbackSignature;
import dev.hourglass.api.CallbackStatus;
import dev.hourglass.api.ErrorCode;
import dev.hourglass.api.HourglassException;
import dev.hourglass.api.JobCallbackService;
import dev.hourglass.api.JobSubmission;
import dev.hourglass.sdk.HourglassClient;
import dev.hourglass.sdk.dubbo.CallbackExporter;
import dev.hourglass.sdk.http.CallbackHandler;
import dev.hourglass.spring.boot.actuate.HourglassHealthAutoConfiguration;
import dev.hourglass.spring.boot.actuate.HourglassHealthIndicator;
import dev.hourglass.spring.boot.actuate.HourglassMetricsAutoConfiguration;
import dev.hourglass.spring.boot.actuate.MicrometerClientObserver;
import dev.hourglass.spring.boot.kafka.HourglassKafkaAutoConfiguration;
import dev.hourglass.spring.boot.kafka.HourglassResultReporter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.dubbo.config.ApplicationConfig;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;
import org.apache.dubbo.rpc.model.ApplicationModel;
import org.apache.dubbo.rpc.model.FrameworkModel;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.kafka.listener.DefaultErrorHandler;

/** The starter's auto-configurations in minimal Spring Boot contexts: what each setting turns on. */
@Tag("alongside") // may run beside another such class: see the parent POM's failsafe executions
class HourglassAutoConfigurationIT {
    private static final String SECRET = "0123456789abcdef0123456789abcdef";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    HourglassMetricsAutoConfiguration.class,
                    HourglassAutoConfiguration.class,
                    HourglassHealthAutoConfiguration.class,
                    HourglassKafkaAutoConfiguration.class));

    /** The business's callback, as an application declares it. */
    static JobCallbackService closeOrder() {
        return request -> request.getPayload().contains("unknown")
                ? CallbackResult.fail("no such order")
                : CallbackResult.success();
    }

    @Test
    void nothingIsConfiguredWithoutSettings() {
        runner.withBean(JobCallbackService.class, HourglassAutoConfigurationIT::closeOrder)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(HourglassClient.class);
                    assertThat(context).doesNotHaveBean(CallbackHandler.class);
                    assertThat(context).doesNotHaveBean(CallbackExporter.class);
                });
    }

    @Test
    void aClientAndAnHttpCallbackHandlerFromProperties() {
        runner.withBean(JobCallbackService.class, HourglassAutoConfigurationIT::closeOrder)
                .withPropertyValues(
                        "hourglass.base-url=http://127.0.0.1:8080",
                        "hourglass.token=some-app-token",
                        "hourglass.callback.signing-secret=" + SECRET)
                .run(context -> {
                    assertThat(context).hasSingleBean(HourglassClient.class);
                    CallbackHandler handler = context.getBean(CallbackHandler.class);
                    byte[] body = ("{\"jobId\":\"7\",\"app\":\"shop\",\"service\":\"close\",\"attempt\":1,"
                                    + "\"maxAttempts\":5,\"fireAt\":\"2026-11-21T15:30:00.000Z\","
                                    + "\"firedAt\":\"2026-11-21T15:30:00.001Z\",\"payload\":{\"order\":\"unknown\"}}")
                            .getBytes(StandardCharsets.UTF_8);
                    CallbackHandler.Answer answer =
                            handler.handle(CallbackSignature.sign(SECRET, System.currentTimeMillis(), body), body);
                    assertThat(answer.status()).isEqualTo(200);
                    assertThat(answer.body()).as("the bean's FAIL").contains("\"status\":\"FAIL\"");
                    CallbackHandler.Answer forged = handler.handle(
                            CallbackSignature.sign(
                                    "another-secret-of-32-characters!!", System.currentTimeMillis(), body),
                            body);
                    assertThat(forged.status()).isEqualTo(401);
                });
    }

    @Test
    void aPreviousSigningSecretIsAcceptedDuringARotation() {
        String next = "fedcba9876543210fedcba9876543210";
        runner.withBean(JobCallbackService.class, HourglassAutoConfigurationIT::closeOrder)
                .withPropertyValues(
                        "hourglass.callback.signing-secret=" + next,
                        "hourglass.callback.previous-signing-secret=" + SECRET)
                .run(context -> {
                    CallbackHandler handler = context.getBean(CallbackHandler.class);
                    byte[] body = ("{\"jobId\":\"7\",\"app\":\"shop\",\"service\":\"close\",\"attempt\":1,"
                                    + "\"maxAttempts\":5,\"fireAt\":\"2026-11-21T15:30:00.000Z\","
                                    + "\"firedAt\":\"2026-11-21T15:30:00.001Z\",\"payload\":{\"order\":1}}")
                            .getBytes(StandardCharsets.UTF_8);
                    long now = System.currentTimeMillis();
                    assertThat(handler.handle(CallbackSignature.sign(SECRET, now, body), body)
                                    .status())
                            .as("the previous secret")
                            .isEqualTo(200);
                    assertThat(handler.handle(CallbackSignature.sign(next, now, body), body)
                                    .status())
                            .as("the new secret")
                            .isEqualTo(200);
                    assertThat(handler.handle(
                                            CallbackSignature.sign("another-secret-of-32-characters!!", now, body),
                                            body)
                                    .status())
                            .isEqualTo(401);
                });
    }

    @Test
    void theCallbackBeanIsExportedOverDubboWhileTheContextRuns() throws Exception {
        int port = freePort();
        runner.withBean(JobCallbackService.class, HourglassAutoConfigurationIT::closeOrder)
                .withPropertyValues(
                        "hourglass.callback.dubbo.enabled=true",
                        "hourglass.callback.dubbo.host=127.0.0.1",
                        "hourglass.callback.dubbo.port=" + port,
                        "hourglass.callback.dubbo.group=shop",
                        "hourglass.callback.dubbo.version=1.0")
                .run(context -> {
                    assertThat(context).hasSingleBean(CallbackExporter.class);
                    CallbackRequest request = new CallbackRequest();
                    request.setJobId("7");
                    request.setAttempt(1);
                    request.setFireAt(Instant.now());
                    request.setPayload("{\"order\":\"unknown\"}");
                    assertThat(callOverDubbo("dubbo://127.0.0.1:" + port, request)
                                    .getStatus())
                            .isEqualTo(CallbackStatus.FAIL);
                });
        try (ServerSocket again = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            assertThat(again.getLocalPort())
                    .as("the exporter stopped with the context")
                    .isEqualTo(port);
        }
    }

    @Test
    void withoutDubboOnTheClassPathTheExportIsLeftOut() {
        runner.withBean(JobCallbackService.class, HourglassAutoConfigurationIT::closeOrder)
                .withClassLoader(new FilteredClassLoader(DubboBootstrap.class))
                .withPropertyValues("hourglass.callback.dubbo.enabled=true")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(CallbackExporter.class);
                });
    }

    /** A base URL nobody listens on: every call fails to connect. */
    private static String nobody() throws IOException {
        return "http://127.0.0.1:" + freePort();
    }

    record Order(long orderId) {}

    @Test
    void theClientTakesTheSettingsTheApplicationsObjectMapperAndTheCustomizers() throws IOException {
        String first = nobody();
        String second = nobody();
        AtomicBoolean customized = new AtomicBoolean();
        runner.withBean(ObjectMapper.class, () -> new ObjectMapper()
                        .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE))
                .withBean(HourglassClientBuilderCustomizer.class, () -> builder -> customized.set(true))
                .withPropertyValues(
                        "hourglass.base-urls=" + first + "," + second,
                        "hourglass.token=some-app-token",
                        "hourglass.retry.max-attempts=1",
                        "hourglass.retry.initial-backoff=10ms",
                        "hourglass.retry.max-backoff=10ms")
                .run(context -> {
                    HourglassClient client = context.getBean(HourglassClient.class);
                    assertThat(client.toPayload(new Order(42)))
                            .as("payloads through the application's mapper")
                            .isEqualTo("{\"order_id\":42}");
                    assertThat(customized).isTrue();
                    assertThat(client.currentBaseUrl()).isEqualTo(first + "/");
                    assertThatThrownBy(() -> client.get("1"))
                            .isInstanceOfSatisfying(HourglassException.class, e -> assertThat(e.code())
                                    .isEqualTo(ErrorCode.UNAVAILABLE));
                    assertThat(client.currentBaseUrl())
                            .as("a node that cannot be reached (one try): the next base URL")
                            .isEqualTo(second + "/");
                });
    }

    @Test
    void theClientsCallsAreMeteredAndTheHealthIndicatorSaysDownWhenTheNodeCannotBeReached() throws IOException {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues(
                        "hourglass.base-url=" + nobody(),
                        "hourglass.token=some-app-token",
                        "hourglass.retry.max-attempts=3",
                        "hourglass.retry.initial-backoff=10ms",
                        "hourglass.retry.max-backoff=10ms")
                .run(context -> {
                    assertThat(context).hasSingleBean(MicrometerClientObserver.class);
                    HourglassClient client = context.getBean(HourglassClient.class);
                    assertThatThrownBy(() -> client.submit(new JobSubmission()
                                    .setService("close")
                                    .setDelayMs(1_000L)
                                    .setBizKey("order-1")))
                            .isInstanceOf(HourglassException.class);
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    assertThat(registry.get("hourglass.client.requests")
                                    .tag("operation", "submit")
                                    .tag("outcome", "UNAVAILABLE")
                                    .timer()
                                    .count())
                            .isEqualTo(1);
                    assertThat(registry.get("hourglass.client.resends")
                                    .tag("operation", "submit")
                                    .counter()
                                    .count())
                            .as("a submit with a bizKey is sent again: three tries")
                            .isEqualTo(2);

                    HourglassHealthIndicator health = context.getBean(HourglassHealthIndicator.class);
                    assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);
                });
    }

    @Test
    void theHealthIndicatorCanBeTurnedOff() throws IOException {
        runner.withPropertyValues(
                        "hourglass.base-url=" + nobody(),
                        "hourglass.token=some-app-token",
                        "management.health.hourglass.enabled=false")
                .run(context -> {
                    assertThat(context).hasSingleBean(HourglassClient.class);
                    assertThat(context).doesNotHaveBean(HourglassHealthIndicator.class);
                });
    }

    @Test
    void kafkaListenersGetHourglassRecordsAndResultsAreReportedOnlyWhenAsked() throws IOException {
        runner.run(context -> {
            assertThat(context).hasBean("hourglassKafkaListenerConfigurer");
            assertThat(context).doesNotHaveBean(HourglassResultReporter.class);
            assertThat(context).doesNotHaveBean(DefaultErrorHandler.class);
        });
        runner.withPropertyValues("hourglass.kafka.records=false")
                .run(context -> assertThat(context).doesNotHaveBean("hourglassKafkaListenerConfigurer"));
        runner.withPropertyValues("hourglass.kafka.report-results=true").run(context -> assertThat(context)
                .as("no client, nothing to report with")
                .doesNotHaveBean(HourglassResultReporter.class));
        String node = nobody();
        runner.withPropertyValues(
                        "hourglass.base-url=" + node,
                        "hourglass.token=some-app-token",
                        "hourglass.kafka.report-results=true")
                .run(context -> {
                    assertThat(context).hasSingleBean(HourglassResultReporter.class);
                    DefaultErrorHandler handler = context.getBean(DefaultErrorHandler.class);
                    assertThat(handler)
                            .as("one error handler for the whole application")
                            .isNotNull();
                });
        runner.withPropertyValues(
                        "hourglass.base-url=" + node,
                        "hourglass.token=some-app-token",
                        "hourglass.kafka.report-results=true",
                        "spring.kafka.listener.type=batch")
                .run(context -> assertThat(context)
                        .as("a batch listener's container calls no record interceptor")
                        .doesNotHaveBean(HourglassResultReporter.class)
                        .doesNotHaveBean(DefaultErrorHandler.class));
    }

    @Test
    void theConfigurationMetadataDescribesTheProperties() throws IOException {
        JsonNode metadata;
        try (InputStream in =
                getClass().getClassLoader().getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
            assertThat(in)
                    .as("generated by spring-boot-configuration-processor")
                    .isNotNull();
            metadata = new ObjectMapper().readTree(in);
        }
        java.util.Map<String, String> described = new java.util.HashMap<>();
        metadata.path("properties")
                .forEach(p -> described.put(
                        p.path("name").asText(), p.path("description").asText()));
        assertThat(described)
                .containsKeys(
                        "hourglass.base-url",
                        "hourglass.base-urls",
                        "hourglass.token",
                        "hourglass.request-timeout",
                        "hourglass.retry.max-attempts",
                        "hourglass.callback.path",
                        "hourglass.callback.signing-secret",
                        "hourglass.callback.dubbo.group",
                        "hourglass.kafka.report-results",
                        "hourglass.health.timeout");
        assertThat(described.get("hourglass.callback.path")).contains("callback endpoint");
    }

    private static CallbackResult callOverDubbo(String url, CallbackRequest request) {
        DubboBootstrap client = DubboBootstrap.newInstance(new FrameworkModel());
        try {
            ApplicationModel model = client.getApplicationModel();
            ApplicationConfig application = new ApplicationConfig(model, "test-client");
            application.setQosEnable(false);
            application.setMetadataType("local");
            ReferenceConfig<JobCallbackService> reference = new ReferenceConfig<>(model.getDefaultModule());
            reference.setInterface(JobCallbackService.class);
            reference.setGroup("shop");
            reference.setVersion("1.0");
            reference.setUrl(url);
            reference.setRetries(0);
            // Dubbo's default 1 s failed a first call on a loaded machine (three modules' tests at
            // once): this test is about the export, not how fast a cold provider answers
            reference.setTimeout(10_000);
            client.application(application).reference(reference).start();
            return reference.get().execute(request);
        } finally {
            client.stop();
            client.getApplicationModel().getFrameworkModel().destroy();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
