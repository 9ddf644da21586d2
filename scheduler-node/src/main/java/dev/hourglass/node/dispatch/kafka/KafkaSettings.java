package dev.hourglass.node.dispatch.kafka;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The node's Kafka delivery settings: {@code kafka.*} of the configuration, where the defaults are.
 *
 * <p>{@code producer} holds producer settings passed through to the {@code KafkaProducer} as they
 * are — security ({@code security.protocol}, {@code sasl.*}, {@code ssl.*}) and tuning
 * ({@code linger.ms}, {@code compression.type}, ...) — over the node's own defaults. A few settings
 * carry the node's guarantees and are not the operator's to change ({@link #problems()} refuses
 * them): {@code acks=all} and {@code enable.idempotence=true} (a retry is never published before the
 * attempt it supersedes), {@code max.block.ms=0} (the sender thread never blocks, see
 * {@link ProducerHandOff}), the byte-array serializers, and no {@code transactional.id}. Setting one
 * of them to the node's own value is accepted. {@code bootstrap.servers} and
 * {@code delivery.timeout.ms} come from {@code cluster.kafkaBootstrap} and
 * {@code kafka.deliveryTimeoutMs}.
 *
 * @param sendQueueRecords most attempts waiting to be handed to the producer
 * @param sendQueueBytes most bytes (keys, values and headers) of the attempts waiting to be handed
 *     to the producer
 * @param deliveryTimeoutMs the producer's {@code delivery.timeout.ms}: a record handed to the
 *     producer is acknowledged, failed or given up within this long
 * @param producer producer settings passed through ({@code kafka.producer.*}), secrets resolved
 */
public record KafkaSettings(
        int sendQueueRecords, long sendQueueBytes, int deliveryTimeoutMs, Map<String, String> producer) {
    /** The settings the node's guarantees rest on, with the only value each may have. */
    static final Map<String, String> FIXED = Map.of(
            ProducerConfig.ACKS_CONFIG, "all",
            ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true",
            ProducerConfig.MAX_BLOCK_MS_CONFIG, "0",
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName(),
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    /** The settings that have their own key in the node's configuration. */
    private static final Map<String, String> OWN_KEYS = Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "cluster.kafkaBootstrap",
            ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "kafka.deliveryTimeoutMs");
    /** Kafka's own {@code ${provider:path:key}} references: the producer resolves them. */
    private static final String CONFIG_PROVIDERS = "config.providers";
    /** The idempotent producer keeps order only with at most this many requests in flight. */
    private static final int MAX_IN_FLIGHT_FOR_IDEMPOTENCE = 5;

    public KafkaSettings {
        producer = Map.copyOf(producer);
    }

    /** No producer settings beyond the node's own. */
    public KafkaSettings(int sendQueueRecords, long sendQueueBytes, int deliveryTimeoutMs) {
        this(sendQueueRecords, sendQueueBytes, deliveryTimeoutMs, Map.of());
    }

    /**
     * What is wrong with {@link #producer()}, one message per setting, each naming it as
     * {@code kafka.producer.<name>}; empty when the producer can be built from them. Checks names,
     * types and ranges the way the producer would, without building one.
     */
    public List<String> problems() {
        List<String> problems = new ArrayList<>();
        Set<String> known = ProducerConfig.configNames();
        boolean kafkaResolves = producer.keySet().stream().anyMatch(k -> k.startsWith(CONFIG_PROVIDERS));
        for (Map.Entry<String, String> e : producer.entrySet()) {
            String name = e.getKey();
            String value = e.getValue() == null ? "" : e.getValue().trim();
            String setting = "kafka.producer." + name;
            if (OWN_KEYS.containsKey(name)) {
                problems.add(setting + " is set by " + OWN_KEYS.get(name) + ": set that instead");
            } else if (FIXED.containsKey(name) && !sameValue(name, value)) {
                problems.add(setting + " must be " + FIXED.get(name) + " (the node's delivery guarantees need it)"
                        + " or left out");
            } else if (name.equals(ProducerConfig.TRANSACTIONAL_ID_CONFIG)) {
                problems.add(setting + " is not supported: the node's producer is idempotent, not transactional");
            } else if (!known.contains(name) && !name.startsWith(CONFIG_PROVIDERS)) {
                problems.add(setting + " is not a Kafka producer setting");
            }
        }
        if (!problems.isEmpty() || kafkaResolves) {
            return problems; // Kafka resolves ${provider:...} values only when it builds the producer
        }
        Map<String, Object> parsed;
        try {
            parsed = ProducerConfig.configDef()
                    .parse(KafkaDispatcher.producerProperties("127.0.0.1:9092", "check", this));
        } catch (ConfigException e) {
            problems.add("kafka.producer: " + e.getMessage());
            return problems;
        }
        int inFlight = (Integer) parsed.get(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION);
        if (inFlight > MAX_IN_FLIGHT_FOR_IDEMPOTENCE) {
            problems.add("kafka.producer." + ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION + " must be at most "
                    + MAX_IN_FLIGHT_FOR_IDEMPOTENCE + " (the idempotent producer keeps order only then)");
        }
        if ((Integer) parsed.get(ProducerConfig.RETRIES_CONFIG) < 1) {
            problems.add(
                    "kafka.producer." + ProducerConfig.RETRIES_CONFIG + " must be at least 1 (idempotent producer)");
        }
        long linger = ((Number) parsed.get(ProducerConfig.LINGER_MS_CONFIG)).longValue();
        long request = ((Number) parsed.get(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG)).longValue();
        if (linger + request > deliveryTimeoutMs) {
            problems.add("kafka.producer." + ProducerConfig.LINGER_MS_CONFIG + " + "
                    + ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG + " must not exceed kafka.deliveryTimeoutMs ("
                    + deliveryTimeoutMs + ")");
        }
        return problems;
    }

    private static boolean sameValue(String name, String value) {
        if (name.equals(ProducerConfig.ACKS_CONFIG)) {
            return value.equals("all") || value.equals("-1");
        }
        return FIXED.get(name).equalsIgnoreCase(value);
    }
}
