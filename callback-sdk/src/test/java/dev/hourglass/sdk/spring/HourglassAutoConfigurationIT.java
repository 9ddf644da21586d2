package dev.hourglass.sdk.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.api.CallbackRequest;
import dev.hourglass.api.CallbackResult;
import dev.hourglass.api.CallbackSignature;
import dev.hourglass.api.CallbackStatus;
import dev.hourglass.api.JobCallbackService;
import dev.hourglass.sdk.HourglassClient;
import dev.hourglass.sdk.dubbo.CallbackExporter;
import dev.hourglass.sdk.http.CallbackHandler;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.apache.dubbo.config.ApplicationConfig;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;
import org.apache.dubbo.rpc.model.ApplicationModel;
import org.apache.dubbo.rpc.model.FrameworkModel;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The SDK's Spring Boot auto-configuration in minimal Spring Boot contexts. */
@Tag("alongside") // may run beside another such class: see the parent POM's failsafe executions
class HourglassAutoConfigurationIT {
    private static final String SECRET = "0123456789abcdef0123456789abcdef";

    private final ApplicationContextRunner runner =
            new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(HourglassAutoConfiguration.class));

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
