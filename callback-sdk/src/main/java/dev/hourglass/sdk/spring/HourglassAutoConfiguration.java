package dev.hourglass.sdk.spring;

import dev.hourglass.api.JobCallbackService;
import dev.hourglass.sdk.HourglassClient;
import dev.hourglass.sdk.dubbo.CallbackExporter;
import dev.hourglass.sdk.http.CallbackHandler;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Spring Boot auto-configuration of the SDK (optional: nothing else in the SDK needs Spring).
 *
 * <ul>
 *   <li>{@code hourglass.base-url} + {@code hourglass.token}: a {@link HourglassClient} bean.
 *   <li>a {@link JobCallbackService} bean + {@code hourglass.callback.signing-secret}: a {@link
 *       CallbackHandler} bean for the HTTP callback endpoint of the application's own web layer;
 *       with {@code hourglass.callback.previous-signing-secret} as well (a rotation), it accepts
 *       callbacks signed with either.
 *   <li>a {@link JobCallbackService} bean + {@code hourglass.callback.dubbo.enabled=true} (and
 *       Dubbo on the classpath): the bean exported over Dubbo with the configured group, version,
 *       port and registry, started with the context and stopped with it.
 * </ul>
 */
@AutoConfiguration
@EnableConfigurationProperties(HourglassProperties.class)
public class HourglassAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnProperty(
            prefix = "hourglass",
            name = {"base-url", "token"})
    public HourglassClient hourglassClient(HourglassProperties properties) {
        return HourglassClient.create(properties.getBaseUrl(), properties.getToken());
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
        return new CallbackHandler(java.util.List.of(c.getSigningSecret(), c.getPreviousSigningSecret()), callback);
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
}
