package dev.hourglass.node.dispatch.kafka;

/**
 * The node's Kafka delivery limits: {@code kafka.*} of the configuration, where the defaults are.
 *
 * @param sendQueueRecords most attempts waiting to be handed to the producer
 * @param sendQueueBytes most bytes (keys, values and headers) of the attempts waiting to be handed
 *     to the producer
 * @param deliveryTimeoutMs the producer's {@code delivery.timeout.ms}: a record handed to the
 *     producer is acknowledged, failed or given up within this long
 */
public record KafkaSettings(int sendQueueRecords, long sendQueueBytes, int deliveryTimeoutMs) {}
