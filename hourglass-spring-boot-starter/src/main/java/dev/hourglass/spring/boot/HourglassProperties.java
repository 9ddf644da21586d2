package dev.hourglass.spring.boot;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code hourglass.*} settings of the starter (docs/api.md, "Spring Boot"). Every one is
 * optional: with none set the starter makes nothing, and each part turns on with its own.
 */
@ConfigurationProperties(prefix = "hourglass")
public class HourglassProperties {
    /**
     * The node's HTTP address, e.g. {@code http://hourglass:8080}: with a token, a {@code
     * HourglassClient} bean. For several nodes without a load balancer, use {@code base-urls}.
     */
    private String baseUrl;

    /** The HTTP addresses of several nodes: the client moves on to the next when one cannot be reached. */
    private List<String> baseUrls = new ArrayList<>();

    /** The app token (or the admin token) the client sends. */
    private String token;

    /** How long the client waits to connect to a node. */
    private Duration connectTimeout = Duration.ofSeconds(5);

    /** How long the client waits for one answer (a reserve waits its {@code waitMs} on top). */
    private Duration requestTimeout = Duration.ofSeconds(30);

    /**
     * Give each submitted job without a bizKey one of the client's ({@code hgc-} and a UUID), so
     * that a submit whose answer was lost can be sent again safely.
     */
    private boolean generateBizKeys;

    /** The name of a Spring Boot SSL bundle ({@code spring.ssl.bundle.*}) whose trust the client uses for https. */
    private String sslBundle;

    private final Retry retry = new Retry();
    private final Callback callback = new Callback();
    private final Kafka kafka = new Kafka();
    private final Health health = new Health();

    /** The base URLs the client is given: {@code base-urls}, or {@code base-url} alone. */
    public List<String> effectiveBaseUrls() {
        if (!baseUrls.isEmpty()) {
            return List.copyOf(baseUrls);
        }
        return baseUrl == null || baseUrl.isBlank() ? List.of() : List.of(baseUrl);
    }

    /** When the client sends a call again (only where that cannot do it twice). */
    public static class Retry {
        /** Tries per call, the first included; 1 turns retries off. */
        private int maxAttempts = 3;

        /** The first wait between tries when the node gives no Retry-After; doubled after each. */
        private Duration initialBackoff = Duration.ofMillis(200);

        /** The longest wait between tries. */
        private Duration maxBackoff = Duration.ofSeconds(5);

        /** The longest Retry-After the client waits out by itself; a longer one fails the call at once. */
        private Duration maxRetryAfter = Duration.ofSeconds(30);

        public int getMaxAttempts() {
            return maxAttempts;
        }

        public void setMaxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
        }

        public Duration getInitialBackoff() {
            return initialBackoff;
        }

        public void setInitialBackoff(Duration initialBackoff) {
            this.initialBackoff = initialBackoff;
        }

        public Duration getMaxBackoff() {
            return maxBackoff;
        }

        public void setMaxBackoff(Duration maxBackoff) {
            this.maxBackoff = maxBackoff;
        }

        public Duration getMaxRetryAfter() {
            return maxRetryAfter;
        }

        public void setMaxRetryAfter(Duration maxRetryAfter) {
            this.maxRetryAfter = maxRetryAfter;
        }
    }

    /** How the application receives its jobs when Hourglass calls it (HTTP or Dubbo). */
    public static class Callback {
        /** The HTTP service's signing secret: with a JobCallbackService bean, a CallbackHandler bean. */
        private String signingSecret;

        /**
         * During a rotation of the signing secret, the one it replaces: callbacks signed with either
         * are accepted. Remove it once the service signs with the new one everywhere.
         */
        private String previousSigningSecret;

        /**
         * The path of the HTTP callback endpoint in the application's own servlet web server, e.g.
         * {@code /hourglass/callback}: the service's {@code url} points there. Unset, no endpoint is
         * registered (the CallbackHandler bean can still be mapped by hand).
         */
        private String path;

        private final Dubbo dubbo = new Dubbo();

        public String getSigningSecret() {
            return signingSecret;
        }

        public void setSigningSecret(String signingSecret) {
            this.signingSecret = signingSecret;
        }

        public String getPreviousSigningSecret() {
            return previousSigningSecret;
        }

        public void setPreviousSigningSecret(String previousSigningSecret) {
            this.previousSigningSecret = previousSigningSecret;
        }

        public String getPath() {
            return path;
        }

        public void setPath(String path) {
            this.path = path;
        }

        public Dubbo getDubbo() {
            return dubbo;
        }
    }

    /** The JobCallbackService bean exported over Dubbo, for a DUBBO service. */
    public static class Dubbo {
        /** Export the JobCallbackService bean over Dubbo. */
        private boolean enabled;

        /** The port the Dubbo protocol listens on. */
        private int port = 20890;

        /** The address to bind and register; Dubbo's own choice (an external interface) when unset. */
        private String host;

        /** The registry, e.g. {@code zookeeper://zk:2181}; unset, no registry (the service names a direct url). */
        private String registry;

        /** The Dubbo group the service names in {@code dubboGroup}. */
        private String group;

        /** The Dubbo version the service names in {@code dubboVersion}. */
        private String version;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public int getPort() {
            return port;
        }

        public void setPort(int port) {
            this.port = port;
        }

        public String getHost() {
            return host;
        }

        public void setHost(String host) {
            this.host = host;
        }

        public String getRegistry() {
            return registry;
        }

        public void setRegistry(String registry) {
            this.registry = registry;
        }

        public String getGroup() {
            return group;
        }

        public void setGroup(String group) {
            this.group = group;
        }

        public String getVersion() {
            return version;
        }

        public void setVersion(String version) {
            this.version = version;
        }
    }

    /** Hourglass records in Spring Kafka listeners (spring-kafka on the class path). */
    public static class Kafka {
        /** Let {@code @KafkaListener} methods take a {@code HourglassRecord} parameter. */
        private boolean records = true;

        /**
         * For a KAFKA service with {@code ackMode: CONSUMER}: report SUCCESS when a listener returns
         * and RETRY when it throws, and retry nothing in the container (Hourglass retries, with the
         * service's backoff). Needs the client (base URL and token).
         */
        private boolean reportResults;

        public boolean isRecords() {
            return records;
        }

        public void setRecords(boolean records) {
            this.records = records;
        }

        public boolean isReportResults() {
            return reportResults;
        }

        public void setReportResults(boolean reportResults) {
            this.reportResults = reportResults;
        }
    }

    /** The {@code hourglass} health indicator (Spring Boot Actuator on the class path). */
    public static class Health {
        /** How long the check waits for the node's {@code /health/ready}. */
        private Duration timeout = Duration.ofSeconds(2);

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }
    }

    public String getBaseUrl() {
        return baseUrl;
    }

    public void setBaseUrl(String baseUrl) {
        this.baseUrl = baseUrl;
    }

    public List<String> getBaseUrls() {
        return baseUrls;
    }

    public void setBaseUrls(List<String> baseUrls) {
        this.baseUrls = baseUrls;
    }

    public String getToken() {
        return token;
    }

    public void setToken(String token) {
        this.token = token;
    }

    public Duration getConnectTimeout() {
        return connectTimeout;
    }

    public void setConnectTimeout(Duration connectTimeout) {
        this.connectTimeout = connectTimeout;
    }

    public Duration getRequestTimeout() {
        return requestTimeout;
    }

    public void setRequestTimeout(Duration requestTimeout) {
        this.requestTimeout = requestTimeout;
    }

    public boolean isGenerateBizKeys() {
        return generateBizKeys;
    }

    public void setGenerateBizKeys(boolean generateBizKeys) {
        this.generateBizKeys = generateBizKeys;
    }

    public String getSslBundle() {
        return sslBundle;
    }

    public void setSslBundle(String sslBundle) {
        this.sslBundle = sslBundle;
    }

    public Retry getRetry() {
        return retry;
    }

    public Callback getCallback() {
        return callback;
    }

    public Kafka getKafka() {
        return kafka;
    }

    public Health getHealth() {
        return health;
    }
}
