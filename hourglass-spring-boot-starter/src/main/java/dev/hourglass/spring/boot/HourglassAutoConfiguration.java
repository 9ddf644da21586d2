package dev.hourglass.spring.boot;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hourglass.api.JobCallbackService;
import dev.hourglass.sdk.ClientObserver;
import dev.hourglass.sdk.HourglassClient;
import dev.hourglass.sdk.dubbo.CallbackExporter;
import dev.hourglass.sdk.http.CallbackHandler;
import dev.hourglass.sdk.http.CallbackServlet;
import java.util.List;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * The starter's auto-configuration of the SDK (docs/api.md, "Spring Boot"). Each part turns on by
 * its own settings and backs off when the application defines the bean itself:
 *
 * <ul>
 *   <li>a base URL (or several) and a token: a {@link HourglassClient} bean, with the
 *       application's {@code ObjectMapper} for payloads, the SSL bundle named in {@code
 *       hourglass.ssl-bundle}, every {@link ClientObserver} bean (the Micrometer meters among
 *       them) and every {@link HourglassClientBuilderCustomizer};
 *   <li>a {@link JobCallbackService} bean and {@code hourglass.callback.signing-secret}: a {@link
 *       CallbackHandler}, and with {@code hourglass.callback.path} in a servlet web application
 *       the callback endpoint itself at that path;
 *   <li>a {@link JobCallbackService} bean and {@code hourglass.callback.dubbo.enabled=true} (Dubbo
 *       on the class path): the bean exported over Dubbo, started and stopped with the context.
 * </ul>
 */
@AutoConfiguration
@EnableConfigurationProperties(HourglassProperties.class)
public class HourglassAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @Conditional(ClientConfigured.class)
    public HourglassClient hourglassClient(
            HourglassProperties properties,
            ObjectProvider<ObjectMapper> objectMapper,
            ObjectProvider<SslBundles> sslBundles,
            ObjectProvider<ClientObserver> observers,
            ObjectProvider<HourglassClientBuilderCustomizer> customizers) {
        HourglassProperties.Retry retry = properties.getRetry();
        HourglassClient.Builder builder = HourglassClient.builder()
                .baseUrls(properties.effectiveBaseUrls())
                .token(properties.getToken())
                .connectTimeout(properties.getConnectTimeout())
                .requestTimeout(properties.getRequestTimeout())
                .retries(retry.getMaxAttempts(), retry.getInitialBackoff(), retry.getMaxBackoff())
                .maxRetryAfter(retry.getMaxRetryAfter())
                .generateBizKeys(properties.isGenerateBizKeys());
        objectMapper.ifUnique(builder::objectMapper);
        if (properties.getSslBundle() != null && !properties.getSslBundle().isBlank()) {
            builder.sslContext(
                    sslBundles.getObject().getBundle(properties.getSslBundle()).createSslContext());
        }
        List<ClientObserver> all = observers.orderedStream().toList();
        if (!all.isEmpty()) {
            builder.observer(
                    all.size() == 1
                            ? all.get(0)
                            : (operation, took, sends, failure) -> {
                                for (ClientObserver o : all) {
                                    try {
                                        o.callEnded(operation, took, sends, failure);
                                    } catch (RuntimeException e) { // a broken one must not silence the others
                                        LogFactory.getLog(HourglassAutoConfiguration.class)
                                                .warn("a ClientObserver failed on " + operation, e);
                                    }
                                }
                            });
        }
        customizers.orderedStream().forEach(c -> c.customize(builder));
        return builder.build();
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(JobCallbackService.class)
    @ConditionalOnProperty(prefix = "hourglass.callback", name = "signing-secret")
    public CallbackHandler hourglassCallbackHandler(HourglassProperties properties, JobCallbackService callback) {
        HourglassProperties.Callback c = properties.getCallback();
        if (c.getPreviousSigningSecret() == null || c.getPreviousSigningSecret().isBlank()) {
            return new CallbackHandler(c.getSigningSecret(), callback);
        }
        return new CallbackHandler(List.of(c.getSigningSecret(), c.getPreviousSigningSecret()), callback);
    }

    /** The callback endpoint in the application's own web server; separate so that no servlet API is needed otherwise. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass(name = "jakarta.servlet.http.HttpServlet")
    @ConditionalOnProperty(
            prefix = "hourglass.callback",
            name = {"path", "signing-secret"})
    static class CallbackEndpoint {
        @Bean
        @ConditionalOnMissingBean(name = "hourglassCallbackServlet")
        @ConditionalOnBean(JobCallbackService.class)
        ServletRegistrationBean<CallbackServlet> hourglassCallbackServlet(
                HourglassProperties properties, CallbackHandler handler) {
            ServletRegistrationBean<CallbackServlet> registration = new ServletRegistrationBean<>(
                    new CallbackServlet(handler), properties.getCallback().getPath());
            registration.setName("hourglassCallback");
            return registration;
        }
    }

    /** Separate so that a missing Dubbo never loads a class that names it. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.apache.dubbo.config.bootstrap.DubboBootstrap")
    @ConditionalOnProperty(prefix = "hourglass.callback.dubbo", name = "enabled", havingValue = "true")
    static class DubboExport {
        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        @ConditionalOnBean(JobCallbackService.class)
        CallbackExporter hourglassCallbackExporter(HourglassProperties properties, JobCallbackService callback) {
            HourglassProperties.Dubbo d = properties.getCallback().getDubbo();
            return CallbackExporter.of(callback)
                    .group(d.getGroup())
                    .version(d.getVersion())
                    .registry(d.getRegistry())
                    .host(d.getHost())
                    .port(d.getPort())
                    .start();
        }
    }

    /** A base URL ({@code base-url} or {@code base-urls}) and a token are set. */
    static class ClientConfigured extends SpringBootCondition {
        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            HourglassProperties p = Binder.get(context.getEnvironment())
                    .bind("hourglass", HourglassProperties.class)
                    .orElseGet(HourglassProperties::new);
            if (p.effectiveBaseUrls().isEmpty()) {
                return ConditionOutcome.noMatch("neither hourglass.base-url nor hourglass.base-urls is set");
            }
            if (p.getToken() == null || p.getToken().isBlank()) {
                return ConditionOutcome.noMatch("hourglass.token is not set");
            }
            return ConditionOutcome.match("a base URL and a token are set");
        }
    }
}
