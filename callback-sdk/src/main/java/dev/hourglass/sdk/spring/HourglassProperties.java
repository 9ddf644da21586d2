package dev.hourglass.sdk.spring;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** {@code hourglass.*} settings of the Spring Boot auto-configuration. */
@ConfigurationProperties(prefix = "hourglass")
public class HourglassProperties {
    /** The node's HTTP address for submitting jobs, e.g. {@code http://hourglass:8080}. */
    private String baseUrl;
    /** The app token. */
    private String token;

    private final Callback callback = new Callback();

    public static class Callback {
        /** The HTTP service's signing secret: set it to get a {@code CallbackHandler} bean. */
        private String signingSecret;
        /**
         * During a rotation of the signing secret, the one it replaces: callbacks signed with either
         * are accepted. Remove it once the service signs with the new one everywhere.
         */
        private String previousSigningSecret;
        /** Export the {@code JobCallbackService} bean over Dubbo when enabled. */
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

        public Dubbo getDubbo() {
            return dubbo;
        }
    }

    public static class Dubbo {
        private boolean enabled;
        private int port = 20890;
        private String host;
        private String registry;
        private String group;
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

    public String getBaseUrl() {
        return baseUrl;
    }

    public void setBaseUrl(String baseUrl) {
        this.baseUrl = baseUrl;
    }

    public String getToken() {
        return token;
    }

    public void setToken(String token) {
        this.token = token;
    }

    public Callback getCallback() {
        return callback;
    }
}
