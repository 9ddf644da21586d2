package dev.hourglass.spring.boot.actuate;

import dev.hourglass.sdk.ClientObserver;
import dev.hourglass.spring.boot.HourglassAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The client's meters in the application's {@link MeterRegistry}. Before the client's
 * auto-configuration, whose client takes every {@link ClientObserver} bean when it is built; after
 * the registry's.
 */
@AutoConfiguration(
        before = HourglassAutoConfiguration.class,
        afterName = {
            "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration"
        })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
public class HourglassMetricsAutoConfiguration {
    @Bean
    @ConditionalOnMissingBean
    public MicrometerClientObserver hourglassClientMeters(MeterRegistry registry) {
        return new MicrometerClientObserver(registry);
    }
}
