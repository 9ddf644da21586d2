package dev.hourglass.spring.boot.actuate;

import dev.hourglass.sdk.HourglassClient;
import dev.hourglass.spring.boot.HourglassAutoConfiguration;
import dev.hourglass.spring.boot.HourglassProperties;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code hourglass} health indicator, when Spring Boot Actuator is there and the client is
 * configured; {@code management.health.hourglass.enabled=false} turns it off.
 */
@AutoConfiguration(after = HourglassAutoConfiguration.class)
@ConditionalOnClass(
        name = {
            "org.springframework.boot.actuate.health.AbstractHealthIndicator",
            "org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator"
        })
@ConditionalOnBean(HourglassClient.class)
@ConditionalOnEnabledHealthIndicator("hourglass")
public class HourglassHealthAutoConfiguration {
    @Bean
    @ConditionalOnMissingBean(name = "hourglassHealthIndicator")
    public HourglassHealthIndicator hourglassHealthIndicator(HourglassClient client, HourglassProperties properties) {
        return new HourglassHealthIndicator(client, properties.getHealth().getTimeout());
    }
}
