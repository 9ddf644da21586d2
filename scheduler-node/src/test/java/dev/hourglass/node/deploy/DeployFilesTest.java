package dev.hourglass.node.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hourglass.node.boot.HourglassNode;
import dev.hourglass.node.config.ConfigLoader;
import dev.hourglass.node.config.NodeConfig;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * deploy/docker and deploy/k8s checked without a Docker engine or a Kubernetes cluster: parsed,
 * every image pinned, every variable given to a node one the node reads, the node's configuration
 * valid, probes on routes the node serves, host ports distinct, mounted files present, and every
 * stop given more time than a node's graceful stop needs.
 */
class DeployFilesTest {
    private static final Path DEPLOY =
            Path.of(System.getProperty("user.dir")).resolve("../deploy").normalize();
    private static final Set<String> KNOWN_VARIABLES = ConfigLoader.knownVariables();

    @TempDir
    Path tmp;

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Object o) {
        return (List<Object>) o;
    }

    private static Set<String> servedPaths() throws Exception {
        try (InputStream in = DeployFilesTest.class.getResourceAsStream("/public/openapi.json")) {
            JsonNode paths = new ObjectMapper().readTree(in).get("paths");
            Set<String> out = new HashSet<>();
            paths.fieldNames().forEachRemaining(out::add);
            return out;
        }
    }

    private static void assertPinned(String image) {
        assertThat(image)
                .as("image %s has a version tag", image)
                .matches("[^:@]+(:[^:]*\\d[^:]*|@sha256:[0-9a-f]{64})");
        assertThat(image).as(image).doesNotEndWith(":latest");
    }

    /** What a node's stop needs at most with {@code config}: the grace plus the stop's own bound. */
    private static long stopNeedsMs(NodeConfig config) {
        return config.engine.shutdownGraceMs + HourglassNode.STOP_BEYOND_GRACE_MS;
    }

    @Test
    void theComposeFileIsAWholePinnedClusterOfValidNodes() throws Exception {
        Path dockerDir = DEPLOY.resolve("docker");
        Map<String, Object> compose = new Yaml().load(Files.readString(dockerDir.resolve("docker-compose.yml")));
        Map<String, Object> services = map(compose.get("services"));
        assertThat(services)
                .containsKeys(
                        "mysql",
                        "zoo1",
                        "zoo2",
                        "zoo3",
                        "kafka",
                        "hourglass1",
                        "hourglass2",
                        "hourglass3",
                        "prometheus",
                        "grafana");
        Set<String> hostPorts = new HashSet<>();
        int nodes = 0;
        for (Map.Entry<String, Object> e : services.entrySet()) {
            Map<String, Object> s = map(e.getValue());
            assertThat(s).as(e.getKey() + " names an image").containsKey("image");
            assertPinned((String) s.get("image"));
            for (Object p : list(s.getOrDefault("ports", List.of()))) {
                String host = p.toString().split(":")[0];
                assertThat(hostPorts.add(host))
                        .as("host port %s used twice", host)
                        .isTrue();
            }
            Object depends = s.get("depends_on");
            if (depends != null) {
                Iterable<?> names = depends instanceof Map<?, ?> m ? m.keySet() : list(depends);
                for (Object d : names) {
                    assertThat(services).as(e.getKey() + " depends on " + d).containsKey(d.toString());
                }
            }
            for (Object v : list(s.getOrDefault("volumes", List.of()))) {
                String source = v.toString().split(":")[0];
                if (source.startsWith(".")) {
                    assertThat(dockerDir.resolve(source).normalize())
                            .as("mounted " + source)
                            .exists();
                }
            }
            if (s.containsKey("build")) {
                nodes++;
                Map<String, Object> build = map(s.get("build"));
                assertThat(dockerDir
                                .resolve(build.get("context").toString())
                                .resolve(build.get("dockerfile").toString())
                                .normalize())
                        .exists();
                Map<String, Object> env = map(s.get("environment"));
                Map<String, String> values = new java.util.HashMap<>();
                List<Object> mounted = list(s.getOrDefault("secrets", List.of()));
                for (Map.Entry<String, Object> v : env.entrySet()) {
                    String k = v.getKey();
                    String value = String.valueOf(v.getValue());
                    assertThat(k)
                            .as("%s: secrets are passed as files, never as values", e.getKey())
                            .isNotIn("HOURGLASS_DB_PASSWORD", "HOURGLASS_ADMIN_TOKEN");
                    String variable = k.endsWith("_FILE") ? k.substring(0, k.length() - "_FILE".length()) : k;
                    assertThat(KNOWN_VARIABLES).as("%s reads %s", e.getKey(), k).contains(variable);
                    if (k.endsWith("_FILE")) {
                        // a Compose secret, which Compose writes to /run/secrets/<name>: written here
                        assertThat(value).startsWith("/run/secrets/");
                        String secret = value.substring("/run/secrets/".length());
                        assertThat(mounted)
                                .as("%s mounts %s", e.getKey(), secret)
                                .contains(secret);
                        assertThat(map(compose.get("secrets"))).containsKey(secret);
                        Path file = tmp.resolve(e.getKey() + "-" + secret);
                        Files.writeString(file, "a-secret-value-from-the-environment-0123456789");
                        value = file.toString();
                    }
                    values.put(k, value.replaceAll("\\$\\{[A-Z_]+:-([^}]*)}", "$1"));
                }
                assertThat(values).containsKeys("HOURGLASS_DB_PASSWORD_FILE", "HOURGLASS_ADMIN_TOKEN_FILE");
                NodeConfig config = ConfigLoader.load(null, values); // validates
                assertThat(config.cluster.zkConnect.split(",")).hasSize(3);
                assertThat(Duration.parse("PT"
                                        + s.get("stop_grace_period").toString().toUpperCase())
                                .toMillis())
                        .as("%s: stop_grace_period covers the node's graceful stop", e.getKey())
                        .isGreaterThan(stopNeedsMs(config));
            }
        }
        assertThat(nodes).isEqualTo(3);
        Map<String, Object> prometheus =
                new Yaml().load(Files.readString(dockerDir.resolve("prometheus/prometheus.yml")));
        assertThat(list(prometheus.get("rule_files"))).containsExactly("/etc/prometheus/hourglass-rules.yml");
    }

    @Test
    void theDockerfileRunsAsAnotherUserAndChecksReadiness() throws Exception {
        String dockerfile = Files.readString(DEPLOY.resolve("docker/Dockerfile"));
        Matcher from = Pattern.compile("(?m)^FROM (\\S+)").matcher(dockerfile);
        assertThat(from.find()).isTrue();
        assertPinned(from.group(1));
        Matcher user = Pattern.compile("(?m)^USER (\\S+)").matcher(dockerfile);
        assertThat(user.find()).isTrue();
        assertThat(user.group(1)).doesNotStartWith("root").doesNotStartWith("0");
        Matcher health = Pattern.compile("http://127\\.0\\.0\\.1:8080(/\\S+)").matcher(dockerfile);
        assertThat(health.find()).as("a HEALTHCHECK").isTrue();
        assertThat(servedPaths()).contains(health.group(1));
        assertThat(dockerfile).contains("COPY scheduler-node/target/hourglass-node.jar");
    }

    @Test
    void theKubernetesManifestsAreCompleteAndConsistent() throws Exception {
        List<Map<String, Object>> docs = new ArrayList<>();
        for (Object d : new Yaml().loadAll(Files.readString(DEPLOY.resolve("k8s/hourglass.yaml")))) {
            docs.add(map(d));
        }
        Map<String, Map<String, Object>> byKind = new java.util.HashMap<>();
        docs.forEach(d -> byKind.putIfAbsent((String) d.get("kind"), d));
        assertThat(byKind).containsKeys("ConfigMap", "Secret", "Service", "StatefulSet", "PodDisruptionBudget");

        Path config = tmp.resolve("hourglass.yaml");
        Files.writeString(
                config, (String) map(byKind.get("ConfigMap").get("data")).get("hourglass.yaml"));
        Map<String, Object> secretData = map(byKind.get("Secret").get("stringData"));
        Map<String, Object> podSpec = map(
                map(map(byKind.get("StatefulSet").get("spec")).get("template")).get("spec"));
        Map<String, Object> container = map(list(podSpec.get("containers")).get(0));

        // the secrets reach the node as files of the mounted Secret: each *_FILE variable names
        // one of its keys, written here where the kubelet would put it
        String secretVolume = list(podSpec.get("volumes")).stream()
                .map(DeployFilesTest::map)
                .filter(v -> v.containsKey("secret"))
                .filter(v -> "hourglass-secrets".equals(map(v.get("secret")).get("secretName")))
                .map(v -> (String) v.get("name"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("the Secret is mounted as a volume"));
        String secretDir = list(container.get("volumeMounts")).stream()
                .map(DeployFilesTest::map)
                .filter(m -> secretVolume.equals(m.get("name")))
                .map(m -> (String) m.get("mountPath"))
                .findFirst()
                .orElseThrow();
        Map<String, String> environment = new java.util.HashMap<>(Map.of("HOURGLASS_NODE_ID", "hourglass-0"));
        for (Object e : list(container.get("env"))) {
            String name = (String) map(e).get("name");
            String value = (String) map(e).get("value");
            assertThat(name)
                    .as("secrets are passed as files, never as values")
                    .isNotIn("HOURGLASS_DB_PASSWORD", "HOURGLASS_ADMIN_TOKEN");
            if (name.endsWith("_FILE")) {
                assertThat(value).startsWith(secretDir + "/");
                String key = value.substring(secretDir.length() + 1);
                assertThat(secretData).as("the Secret has the key " + key).containsKey(key);
                Path file = Files.writeString(tmp.resolve(key), (String) secretData.get(key));
                environment.put(name, file.toString());
            }
        }
        assertThat(environment).containsKeys("HOURGLASS_DB_PASSWORD_FILE", "HOURGLASS_ADMIN_TOKEN_FILE");
        NodeConfig node = ConfigLoader.load(config, environment);
        assertThat(node.isStandalone()).isFalse();
        assertThat(node.adminToken).isEqualTo(secretData.get("admin-token"));
        assertThat(node.database.password).isEqualTo(secretData.get("db-password"));
        assertThat(((Number) podSpec.get("terminationGracePeriodSeconds")).longValue() * 1_000)
                .as("terminationGracePeriodSeconds covers the node's graceful stop")
                .isGreaterThan(stopNeedsMs(node));
        assertPinned((String) container.get("image"));
        Set<String> served = servedPaths();
        assertThat(container).containsKey("startupProbe");
        List<Object> preStop =
                list(map(map(map(container.get("lifecycle")).get("preStop")).get("exec"))
                        .get("command"));
        long preStopMs = 1_000 * Long.parseLong((String) preStop.get(preStop.size() - 1));
        assertThat(((Number) podSpec.get("terminationGracePeriodSeconds")).longValue() * 1_000)
                .as("the preStop wait and the graceful stop both fit the grace period")
                .isGreaterThan(preStopMs + stopNeedsMs(node));
        for (String probe : List.of("startupProbe", "readinessProbe", "livenessProbe")) {
            String path = (String) map(map(container.get(probe)).get("httpGet")).get("path");
            assertThat(served).as(probe).contains(path);
        }
        for (Object e : list(container.get("env"))) {
            String name = (String) map(e).get("name");
            if (name.startsWith("HOURGLASS_")) {
                String variable = name.endsWith("_FILE") ? name.substring(0, name.length() - "_FILE".length()) : name;
                assertThat(KNOWN_VARIABLES).as("the node reads " + name).contains(variable);
            }
        }
        assertThat(map(podSpec.get("securityContext")).get("runAsNonRoot")).isEqualTo(true);
        assertThat(map(byKind.get("PodDisruptionBudget").get("spec")).get("maxUnavailable"))
                .isEqualTo(1);
    }
}
