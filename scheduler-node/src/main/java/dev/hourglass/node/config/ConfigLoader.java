package dev.hourglass.node.config;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
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
     * The environment variables of the configuration table (README.md, "Configuration", its env
     * column).
     */
    static void applyEnvironment(NodeConfig c, Map<String, String> env) {
        set(env, "HOURGLASS_HTTP_PORT", v -> c.http.port = integer("HOURGLASS_HTTP_PORT", v));
        set(env, "HOURGLASS_HTTP_HOST", v -> c.http.host = v);
        set(env, "HOURGLASS_HTTP_TLS_KEYSTORE", v -> c.http.tls.keyStore = v);
        set(env, "HOURGLASS_HTTP_TLS_KEYSTORE_PASSWORD", v -> c.http.tls.keyStorePassword = v);
        set(env, "HOURGLASS_ADMIN_TOKEN", v -> c.adminToken = v);
        set(env, "HOURGLASS_DATA_DIR", v -> c.dataDir = v);
        set(env, "HOURGLASS_DB_URL", v -> c.database.url = v);
        set(env, "HOURGLASS_DB_USER", v -> c.database.user = v);
        set(env, "HOURGLASS_DB_PASSWORD", v -> c.database.password = v);
        set(env, "HOURGLASS_ZK_CONNECT", v -> c.cluster.zkConnect = v);
        set(env, "HOURGLASS_ZK_AUTH", v -> c.cluster.zkAuth = v);
        set(env, "HOURGLASS_KAFKA_BOOTSTRAP", v -> c.cluster.kafkaBootstrap = v);
        set(env, "HOURGLASS_DUBBO_PORT", v -> c.dubbo.port = integer("HOURGLASS_DUBBO_PORT", v));
        set(env, "HOURGLASS_DUBBO_HOST", v -> c.dubbo.host = v);
        set(env, "HOURGLASS_DUBBO_REGISTRY", v -> c.dubbo.registry = v);
        set(
                env,
                "HOURGLASS_CALLBACK_ALLOW",
                v -> c.callbackAllow = Arrays.stream(v.split(","))
                        .map(String::trim)
                        .filter(s -> !s.isEmpty())
                        .toList());
        set(env, "HOURGLASS_NODE_ID", v -> c.nodeId = v);
    }

    /** Every environment variable the node reads (for checks of deployment files). */
    public static java.util.Set<String> knownVariables() {
        java.util.Set<String> asked = new java.util.TreeSet<>();
        applyEnvironment(new NodeConfig(), new java.util.AbstractMap<>() {
            @Override
            public String get(Object key) {
                asked.add((String) key);
                return null;
            }

            @Override
            public java.util.Set<Entry<String, String>> entrySet() {
                return java.util.Set.of();
            }
        });
        return asked;
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
