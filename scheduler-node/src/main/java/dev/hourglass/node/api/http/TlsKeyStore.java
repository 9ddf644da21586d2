package dev.hourglass.node.api.http;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * The key store of the HTTPS port ({@code http.tls.*}): the node's private key and certificate
 * chain, read once at start (a renewed certificate takes a restart, node by node).
 *
 * <p>Plain HTTP is not served on that port at all: a client that speaks HTTP to it fails its
 * connection rather than being answered in clear text, so no token crosses the network in the clear
 * by mistake. The certificate's host name is not checked against the request's {@code Host}: health
 * probes and load balancers call nodes by address; verifying the certificate is the client's part.
 *
 * @param path PKCS12 (default) or JKS file holding exactly the key to serve, or one key among others
 * @param type {@code PKCS12} or {@code JKS}
 * @param password the key store's password
 * @param keyPassword the private key's password; null: the key store's
 */
public record TlsKeyStore(Path path, String type, String password, String keyPassword) {
    public static final List<String> TYPES = List.of("PKCS12", "JKS");

    /** Problems that would stop the HTTPS port from starting, each naming its setting; empty when none. */
    public List<String> problems() {
        List<String> problems = new ArrayList<>();
        if (!TYPES.contains(type.toUpperCase(Locale.ROOT))) {
            problems.add("http.tls.keyStoreType must be one of " + TYPES);
            return problems;
        }
        if (password == null) {
            problems.add("http.tls.keyStorePassword must be set with http.tls.keyStore");
            return problems;
        }
        try {
            KeyStore store = load();
            boolean hasKey = false;
            for (String alias : Collections.list(store.aliases())) {
                if (store.isKeyEntry(alias)) {
                    hasKey = true;
                    store.getKey(alias, effectiveKeyPassword().toCharArray()); // a wrong key password fails here
                }
            }
            if (!hasKey) {
                problems.add("http.tls.keyStore " + path + " holds no private key");
            }
        } catch (IOException e) {
            problems.add(
                    e.getCause() instanceof java.security.UnrecoverableKeyException
                            ? "http.tls.keyStorePassword does not open " + path
                            : "http.tls.keyStore " + path + " cannot be read: " + e.getMessage());
        } catch (java.security.UnrecoverableKeyException e) {
            problems.add("http.tls.keyPassword does not open the private key in " + path);
        } catch (GeneralSecurityException e) {
            problems.add("http.tls.keyStore " + path + " cannot be read: " + e.getMessage());
        }
        return problems;
    }

    private KeyStore load() throws IOException, GeneralSecurityException {
        KeyStore store = KeyStore.getInstance(type.toUpperCase(Locale.ROOT));
        try (InputStream in = Files.newInputStream(path)) {
            store.load(in, password.toCharArray());
        }
        return store;
    }

    private String effectiveKeyPassword() {
        return keyPassword != null ? keyPassword : password;
    }

    /** The HTTPS connector on {@code host:port}, HTTP/1.1 over TLS with Javalin's HTTP settings. */
    ServerConnector connector(Server server, HttpConfiguration javalinHttp, String host, int port) {
        SslContextFactory.Server tls = new SslContextFactory.Server();
        try {
            tls.setKeyStore(load());
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("http.tls.keyStore " + path + " cannot be read: " + e.getMessage(), e);
        }
        tls.setKeyManagerPassword(effectiveKeyPassword());
        HttpConfiguration https = new HttpConfiguration(javalinHttp);
        SecureRequestCustomizer secure = new SecureRequestCustomizer();
        secure.setSniHostCheck(false);
        https.addCustomizer(secure);
        ServerConnector connector = new ServerConnector(
                server,
                new SslConnectionFactory(tls, HttpVersion.HTTP_1_1.asString()),
                new HttpConnectionFactory(https));
        connector.setHost(host);
        connector.setPort(port);
        return connector;
    }

    @Override
    public String toString() {
        return "TlsKeyStore[" + path + ", " + type + "]"; // never the passwords
    }
}
