package dev.hourglass.spring.boot.kafka;

import dev.hourglass.sdk.kafka.HourglassRecord;
import org.springframework.core.MethodParameter;
import org.springframework.kafka.support.KafkaNull;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.invocation.HandlerMethodArgumentResolver;

/**
 * Gives a {@code @KafkaListener} method's {@link HourglassRecord} parameter the job its record
 * carries, read from the message's headers (Spring Kafka maps every inbound Kafka header) and its
 * payload (the record's value: bytes or text).
 *
 * <pre>{@code
 * @KafkaListener(topics = "shop.orders-close")
 * void close(HourglassRecord job) { orders.close(job.bizKey(), job.valueAsString()); }
 * }</pre>
 *
 * An argument resolver, not a record converter: the application keeps whatever converter it has,
 * and listeners with a {@code contentTypeConverter} of their own still start.
 */
public class HourglassRecordArgumentResolver implements HandlerMethodArgumentResolver {
    @Override
    public boolean supportsParameter(MethodParameter parameter) {
        return HourglassRecord.class.equals(parameter.getParameterType());
    }

    @Override
    public Object resolveArgument(MethodParameter parameter, Message<?> message) {
        Object payload = message.getPayload();
        return HourglassRecord.from(message.getHeaders(), payload instanceof KafkaNull ? null : payload);
    }
}
