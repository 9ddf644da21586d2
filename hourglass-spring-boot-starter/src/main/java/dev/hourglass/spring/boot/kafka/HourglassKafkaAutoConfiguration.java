package dev.hourglass.spring.boot.kafka;

import dev.hourglass.sdk.HourglassClient;
import dev.hourglass.spring.boot.HourglassAutoConfiguration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.KafkaListenerConfigurer;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.RecordInterceptor;
import org.springframework.messaging.handler.invocation.HandlerMethodArgumentResolver;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.FixedBackOff;

/**
 * Hourglass records in Spring Kafka listeners: a {@code HourglassRecord} parameter in any {@code
 * @KafkaListener} method, and with {@code hourglass.kafka.report-results} the results reported. The
 * reporter and the error handler are Spring Boot's listener container factory's when they are the
 * only beans of their types: an application that defines its own interceptor or error handler
 * keeps it (and then reports by hand, with {@code HourglassRecord.report}).
 */
@AutoConfiguration(
        after = HourglassAutoConfiguration.class,
        beforeName = "org.springframework.boot.autoconfigure.kafka.KafkaAutoConfiguration")
@ConditionalOnClass(name = "org.springframework.kafka.annotation.KafkaListenerConfigurer")
public class HourglassKafkaAutoConfiguration {

    /** {@code HourglassRecord} parameters in {@code @KafkaListener} methods. */
    @Bean
    @ConditionalOnMissingBean(name = "hourglassKafkaListenerConfigurer")
    @ConditionalOnProperty(prefix = "hourglass.kafka", name = "records", matchIfMissing = true)
    public KafkaListenerConfigurer hourglassKafkaListenerConfigurer() {
        return registrar -> {
            List<HandlerMethodArgumentResolver> resolvers =
                    new ArrayList<>(registrar.getCustomMethodArgumentResolvers());
            resolvers.add(new HourglassRecordArgumentResolver());
            registrar.setCustomMethodArgumentResolvers(resolvers.toArray(HandlerMethodArgumentResolver[]::new));
        };
    }

    /**
     * Results reported for {@code ackMode: CONSUMER} services. Record listeners only: a batch
     * listener's container calls no record interceptor, so it is not configured there.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(prefix = "hourglass.kafka", name = "report-results", havingValue = "true")
    @ConditionalOnProperty(
            prefix = "spring.kafka.listener",
            name = "type",
            havingValue = "single",
            matchIfMissing = true)
    @ConditionalOnBean(HourglassClient.class)
    static class ReportResults {
        @Bean
        @ConditionalOnMissingBean(RecordInterceptor.class)
        HourglassResultReporter hourglassResultReporter(HourglassClient client) {
            return new HourglassResultReporter(client);
        }

        /**
         * Spring Kafka's default error handler, except for Hourglass's records: one of those that
         * failed is reported as RETRY and not run again by the container (its default would run it
         * up to nine more times at once, each a second run of one attempt); Hourglass retries it
         * with the service's backoff. Other records keep the default's retries.
         */
        @Bean
        @ConditionalOnMissingBean(CommonErrorHandler.class)
        DefaultErrorHandler hourglassKafkaErrorHandler() {
            DefaultErrorHandler handler = new DefaultErrorHandler();
            handler.setBackOffFunction(ReportResults::backOff);
            return handler;
        }

        /** No second run for a Hourglass record; null (the handler's default) for any other. */
        static BackOff backOff(ConsumerRecord<?, ?> record, Exception exception) {
            return record.headers().lastHeader("hourglass-job-id") != null ? new FixedBackOff(0, 0) : null;
        }
    }
}
