package dev.hourglass.spring.boot.kafka;

import dev.hourglass.sdk.HourglassClient;
import dev.hourglass.spring.boot.HourglassAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.RecordInterceptor;
import org.springframework.kafka.support.converter.RecordMessageConverter;
import org.springframework.util.backoff.FixedBackOff;

/**
 * Hourglass records in Spring Kafka listeners. Spring Boot's listener container factory takes these
 * beans when they are the only ones of their type: an application that defines its own converter,
 * interceptor or error handler keeps it (and then converts or reports by hand, with {@code
 * HourglassRecord.from} and {@code HourglassRecord.report}).
 */
@AutoConfiguration(
        after = HourglassAutoConfiguration.class,
        beforeName = "org.springframework.boot.autoconfigure.kafka.KafkaAutoConfiguration")
@ConditionalOnClass(name = "org.springframework.kafka.support.converter.MessagingMessageConverter")
public class HourglassKafkaAutoConfiguration {

    /** {@code HourglassRecord} parameters in {@code @KafkaListener} methods. */
    @Bean
    @ConditionalOnMissingBean(RecordMessageConverter.class)
    @ConditionalOnProperty(prefix = "hourglass.kafka", name = "records", matchIfMissing = true)
    public HourglassRecordMessageConverter hourglassRecordMessageConverter() {
        return new HourglassRecordMessageConverter();
    }

    /** Results reported for {@code ackMode: CONSUMER} services; the container retries nothing itself. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(prefix = "hourglass.kafka", name = "report-results", havingValue = "true")
    @ConditionalOnBean(HourglassClient.class)
    static class ReportResults {
        @Bean
        @ConditionalOnMissingBean(RecordInterceptor.class)
        HourglassResultReporter hourglassResultReporter(HourglassClient client) {
            return new HourglassResultReporter(client);
        }

        /**
         * A failed record is reported as RETRY and not run again by the container: Spring Kafka's
         * default would run it up to nine more times at once, each a second run of one attempt.
         */
        @Bean
        @ConditionalOnMissingBean(CommonErrorHandler.class)
        DefaultErrorHandler hourglassKafkaErrorHandler() {
            return new DefaultErrorHandler(new FixedBackOff(0, 0));
        }
    }
}
