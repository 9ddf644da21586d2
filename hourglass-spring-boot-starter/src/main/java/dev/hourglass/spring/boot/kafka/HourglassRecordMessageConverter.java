package dev.hourglass.spring.boot.kafka;

import dev.hourglass.sdk.kafka.HourglassRecord;
import java.lang.reflect.Type;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.kafka.support.converter.MessagingMessageConverter;

/**
 * Spring Kafka's record converter, which also gives a {@code @KafkaListener} method's {@link
 * HourglassRecord} parameter the job the record carries (its headers and value). Every other
 * parameter type is converted as Spring Kafka does by default.
 *
 * <pre>{@code
 * @KafkaListener(topics = "shop.orders-close")
 * void close(HourglassRecord job) { orders.close(job.bizKey(), job.valueAsString()); }
 * }</pre>
 */
public class HourglassRecordMessageConverter extends MessagingMessageConverter {
    @Override
    protected Object extractAndConvertValue(ConsumerRecord<?, ?> record, Type type) {
        if (type == HourglassRecord.class) {
            return HourglassRecord.from(record);
        }
        return super.extractAndConvertValue(record, type);
    }
}
