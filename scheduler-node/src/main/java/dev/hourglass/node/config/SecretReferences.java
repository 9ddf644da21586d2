package dev.hourglass.node.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Settings that name a secret instead of holding it, so the configuration file can be shared and
 * versioned: {@code ${env:NAME}} is replaced by the environment variable {@code NAME}, and
 * {@code ${file:/path}} by the content of the file (one trailing line break dropped: what
 * {@code echo secret > file} and Kubernetes secret volumes leave). A reference may be the whole value
 * or a part of it ({@code password="${env:KAFKA_PASSWORD}";} in a JAAS line). Nothing else is
 * touched: any other {@code $} stays as written.
 *
 * <p>Which settings may do this is listed in the README's configuration table (the Kafka producer's
 * settings, {@code cluster.zkAuth}, {@code http.tls.keyStorePassword}). An unset variable or an
 * unreadable file fails start-up with a message naming the setting and the reference, never the
 * secret.
 */
final class SecretReferences {
    private static final Pattern REFERENCE = Pattern.compile("\\$\\{(env|file):([^}]+)}");

    private final Map<String, String> env;
    private final List<String> errors;

    SecretReferences(Map<String, String> env, List<String> errors) {
        this.env = env;
        this.errors = errors;
    }

    /** {@code value} with its references replaced; null for null. Problems go to the error list. */
    String resolve(String setting, String value) {
        if (value == null || !value.contains("${")) {
            return value;
        }
        Matcher m = REFERENCE.matcher(value);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String secret = m.group(1).equals("env") ? variable(setting, m.group(2)) : file(setting, m.group(2));
            m.appendReplacement(out, Matcher.quoteReplacement(secret == null ? "" : secret));
        }
        m.appendTail(out);
        return out.toString();
    }

    private String variable(String setting, String name) {
        String v = env.get(name);
        if (v == null) {
            errors.add(setting + ": environment variable " + name + " (${env:" + name + "}) is not set");
        }
        return v;
    }

    private String file(String setting, String path) {
        try {
            String content = Files.readString(Path.of(path), StandardCharsets.UTF_8);
            if (content.endsWith("\n")) {
                content = content.substring(0, content.length() - (content.endsWith("\r\n") ? 2 : 1));
            }
            return content;
        } catch (IOException | RuntimeException e) {
            errors.add(setting + ": cannot read ${file:" + path + "}: "
                    + e.getClass().getSimpleName());
            return null;
        }
    }
}
