package dev.hourglass.node.security;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A key store with one self-signed certificate for 127.0.0.1 and localhost, made by the JDK's
 * {@code keytool}, and a client SSL context that trusts exactly that certificate.
 */
final class SelfSignedKeyStore {
    final Path path;
    final String type;
    final String password;

    private SelfSignedKeyStore(Path path, String type, String password) {
        this.path = path;
        this.type = type;
        this.password = password;
    }

    static SelfSignedKeyStore create(Path dir, String type, String password) throws Exception {
        Path path = dir.resolve("node-" + System.nanoTime() + (type.equals("JKS") ? ".jks" : ".p12"));
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process p = new ProcessBuilder(List.of(
                        keytool.toString(),
                        "-genkeypair",
                        "-alias",
                        "node",
                        "-keyalg",
                        "EC",
                        "-groupname",
                        "secp256r1",
                        "-dname",
                        "CN=localhost",
                        "-ext",
                        "SAN=ip:127.0.0.1,dns:localhost",
                        "-validity",
                        "2",
                        "-keystore",
                        path.toString(),
                        "-storetype",
                        type,
                        "-storepass",
                        password,
                        "-keypass",
                        password))
                .redirectErrorStream(true)
                .start();
        String output = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IllegalStateException("keytool failed: " + output);
        }
        return new SelfSignedKeyStore(path, type, password);
    }

    /** An SSL context that trusts this key store's certificate and nothing else. */
    SSLContext trustingIt() throws IOException, GeneralSecurityException {
        KeyStore store = KeyStore.getInstance(type);
        try (InputStream in = Files.newInputStream(path)) {
            store.load(in, password.toCharArray());
        }
        Certificate certificate = store.getCertificate("node");
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("node", certificate);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        return context;
    }
}
