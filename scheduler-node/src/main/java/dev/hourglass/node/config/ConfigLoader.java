package dev.hourglass.node.config;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Reads a {@link NodeConfig}: YAML file (optional), then {@code HOURGLASS_*} environment overrides,
 * then the secrets that settings name ({@link SecretReferences}), then validation.
 */
public final class ConfigLoader {
    private ConfigLoader() {}

    public static NodeConfig load(Path file, Map<String, String> env) {
        NodeConfig config = file == null ? new NodeConfig() : readYaml(file);
        applyEnvironment(config, env);
        resolveSecretReferences(config, env);
        config.validate();
        return config;
    }

    /**
     * Replaces {@code ${env:NAME}} and {@code ${file:/path}} in the settings that may hold secrets.
     * The Kafka producer's values are left to Kafka when they configure its own
     * {@code config.providers} (their {@code ${provider:path:key}} would look like ours).
     */
    static void resolveSecretReferences(NodeConfig c, Map<String, String> env) {
        java.util.List<String> errors = new java.util.ArrayList<>();
        SecretReferences secrets = new SecretReferences(env, errors);
        if (c.kafka.producer != null
                && c.kafka.producer.keySet().stream().noneMatch(k -> k.startsWith("config.providers"))) {
            Map<String, String> resolved = new java.util.LinkedHashMap<>();
            c.kafka.producer.forEach(
                    (name, value) -> resolved.put(name, secrets.resolve("kafka.producer." + name, value)));
            c.kafka.producer = resolved;
        }
        c.cluster.zkAuth = secrets.resolve("cluster.zkAuth", c.cluster.zkAuth);
        if (c.http.tls != null) {
            c.http.tls.keyStorePassword = secrets.resolve("http.tls.keyStorePassword", c.http.tls.keyStorePassword);
            c.http.tls.keyPassword = secrets.resolve("http.tls.keyPassword", c.http.tls.keyPassword);
        }
        if (!errors.isEmpty()) {
            throw new ConfigException(String.join("; ", errors));
        }
    }

    static NodeConfig readYaml(Path file) {
        ObjectMapper yaml =
                new ObjectMapper(new YAMLFactory()).enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
        try {
            if (Files.size(file) == 0) {
                return new NodeConfig();
            }
            return yaml.readValue(file.toFile(), NodeConfig.class);
        } catch (IOException e) {
            throw new ConfigException("cannot read config file " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * The short names of the first releases (README.md, "Configuration"), kept beside the generated
     * ones ({@link EnvironmentVariables}); where both name a setting, the short one is applied last.
     */
    private static final Set<String> SHORT_NAMES = Set.of(
            "HOURGLASS_HTTP_TLS_KEYSTORE",
            "HOURGLASS_HTTP_TLS_KEYSTORE_PASSWORD",
            "HOURGLASS_DB_URL",
            "HOURGLASS_DB_USER",
            "HOURGLASS_DB_PASSWORD",
            "HOURGLASS_ZK_CONNECT",
            "HOURGLASS_ZK_AUTH",
            "HOURGLASS_KAFKA_BOOTSTRAP",
            "HOURGLASS_DUBBO_PORT",
            "HOURGLASS_DUBBO_HOST",
            "HOURGLASS_DUBBO_REGISTRY");
    /** The Kafka producer's SASL login (a secret, so with a {@code _FILE} form like every variable). */
    static final String KAFKA_SASL_JAAS_CONFIG = "HOURGLASS_KAFKA_SASL_JAAS_CONFIG";

    /**
     * Every setting's environment variable ({@link EnvironmentVariables}: {@code HOURGLASS_} and its
     * path in upper snake case, or {@code NAME_FILE} for a file holding the value), then the short
     * names of the first releases; an unknown {@code HOURGLASS_*} variable is refused.
     */
    static void applyEnvironment(NodeConfig c, Map<String, String> rawEnv) {
        Map<String, String> settings = EnvironmentVariables.settings();
        Map<String, String> env = EnvironmentVariables.resolved(rawEnv, knownVariables());
        settings.forEach((variable, path) -> {
            String v = env.get(variable);
            if (v != null && !v.isBlank()) {
                EnvironmentVariables.apply(c, variable, path, v);
            }
        });
        set(env, "HOURGLASS_HTTP_TLS_KEYSTORE", v -> c.http.tls.keyStore = v);
        set(env, "HOURGLASS_HTTP_TLS_KEYSTORE_PASSWORD", v -> c.http.tls.keyStorePassword = v);
        set(env, "HOURGLASS_DB_URL", v -> c.database.url = v);
        set(env, "HOURGLASS_DB_USER", v -> c.database.user = v);
        set(env, "HOURGLASS_DB_PASSWORD", v -> c.database.password = v);
        set(env, "HOURGLASS_ZK_CONNECT", v -> c.cluster.zkConnect = v);
        set(env, "HOURGLASS_ZK_AUTH", v -> c.cluster.zkAuth = v);
        set(env, "HOURGLASS_KAFKA_BOOTSTRAP", v -> c.cluster.kafkaBootstrap = v);
        set(env, "HOURGLASS_DUBBO_PORT", v -> c.dubbo.port = integer("HOURGLASS_DUBBO_PORT", v));
        set(env, "HOURGLASS_DUBBO_HOST", v -> c.dubbo.host = v);
        set(env, "HOURGLASS_DUBBO_REGISTRY", v -> c.dubbo.registry = v);
        set(env, KAFKA_SASL_JAAS_CONFIG, v -> c.kafka.producer.put("sasl.jaas.config", v));
    }

    /** Every environment variable the node reads (without their {@code _FILE} forms). */
    public static java.util.Set<String> knownVariables() {
        java.util.Set<String> known =
                new java.util.TreeSet<>(EnvironmentVariables.settings().keySet());
        known.addAll(SHORT_NAMES);
        known.add(KAFKA_SASL_JAAS_CONFIG);
        return known;
    }

    private static void set(Map<String, String> env, String name, Consumer<String> apply) {
        String v = env.get(name);
        if (v != null && !v.isBlank()) {
            apply.accept(v.trim());
        }
    }

    private static int integer(String name, String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new ConfigException(name + " must be a whole number, not '" + value + "'");
        }
    }
}
