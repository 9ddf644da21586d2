package dev.hourglass.node.store.mybatis;

import java.util.Locale;
import java.util.Optional;

/**
 * Turns a failure to reach the database at start into what the user should change, for the
 * failures a first start commonly meets: TLS. MariaDB Connector/J 4 requires TLS unless the URL
 * says otherwise, so a server without TLS (Debian's MariaDB as installed) is refused with "Trying
 * to connect with ssl, but ssl not enabled in the server"; a server whose certificate the JVM does
 * not trust fails the handshake. docs/operations.md, "Connecting to the database", has the long form.
 */
public final class ConnectionAdvice {
    private ConnectionAdvice() {}

    /** Advice for {@code failure} of connecting to {@code jdbcUrl}, if it is one we recognise. */
    public static Optional<String> forFailure(Throwable failure, String jdbcUrl) {
        String messages = chain(failure).toLowerCase(Locale.ROOT);
        boolean mariadb = jdbcUrl != null && jdbcUrl.startsWith("jdbc:mariadb:");
        if (messages.contains("ssl not enabled in the server")
                || messages.contains("server does not support ssl")
                || messages.contains("server doesn't support ssl")) {
            return Optional.of("the database server at " + hostOf(jdbcUrl) + " does not offer TLS, and the "
                    + (mariadb ? "MariaDB" : "MySQL") + " driver was told to require it"
                    + (mariadb ? " (MariaDB Connector/J 4 requires TLS by default)" : "") + ". Either enable TLS"
                    + " on the server, or, on a network you trust, connect without it: add "
                    + (mariadb ? "?sslMode=disable" : "?sslMode=DISABLED") + " to database.url ("
                    + "HOURGLASS_DB_URL). See docs/operations.md, \"Connecting to the database\".");
        }
        if (messages.contains("pkix path") || messages.contains("unable to find valid certification path")) {
            return Optional.of("the TLS certificate of the database server at " + hostOf(jdbcUrl)
                    + " is not trusted by this JVM. Give the driver the server's CA ("
                    + (mariadb ? "serverSslCert=/path/ca.pem" : "trustCertificateKeyStoreUrl=file:/path/truststore")
                    + " in database.url) or import it into the JVM's trust store. See docs/operations.md,"
                    + " \"Connecting to the database\".");
        }
        return Optional.empty();
    }

    private static String chain(Throwable t) {
        StringBuilder all = new StringBuilder();
        for (Throwable c = t; c != null && all.length() < 20_000; c = c.getCause() == c ? null : c.getCause()) {
            all.append(c.getMessage()).append('\n');
        }
        return all.toString();
    }

    private static String hostOf(String jdbcUrl) {
        if (jdbcUrl == null) {
            return "?";
        }
        String rest = jdbcUrl.replaceFirst("^jdbc:[a-z]+://", "");
        int end = rest.indexOf('/');
        return end < 0 ? rest : rest.substring(0, end);
    }
}
