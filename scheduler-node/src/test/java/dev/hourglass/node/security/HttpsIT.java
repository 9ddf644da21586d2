package dev.hourglass.node.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hourglass.node.boot.HourglassNode;
import dev.hourglass.node.config.NodeConfig;
import dev.hourglass.node.testing.EmbeddedMariaDb;
import dev.hourglass.node.testing.RunsAlongside;
import dev.hourglass.node.testing.TestNodes;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A node with {@code http.tls.*}: its API over HTTPS with a self-signed certificate, and nothing in clear text. */
@RunsAlongside
class HttpsIT {
    @TempDir
    static Path dir;

    static SelfSignedKeyStore keyStore;
    static HourglassNode node;
    static HttpClient trusting;

    @BeforeAll
    static void start() throws Exception {
        keyStore = SelfSignedKeyStore.create(dir, "PKCS12", "store-password-1");
        NodeConfig config = TestNodes.config(EmbeddedMariaDb.newDatabase());
        config.http.tls.keyStore = keyStore.path.toString();
        config.http.tls.keyStorePassword = keyStore.password;
        config.dubbo.enabled = false; // HTTPS only
        node = TestNodes.start(config);
        trusting = client(HttpClient.newBuilder().sslContext(keyStore.trustingIt()));
    }

    @AfterAll
    static void stop() {
        if (node != null) {
            node.close();
        }
    }

    private static HttpClient client(HttpClient.Builder builder) {
        return builder.version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
    }

    private static HttpResponse<String> send(HttpClient client, String method, String url, String body)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url))
                .timeout(Duration.ofSeconds(10))
                .header("Authorization", "Bearer " + TestNodes.ADMIN_TOKEN)
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String https(String path) {
        return "https://127.0.0.1:" + node.httpPort() + path;
    }

    @Test
    void theApiAnswersOverHttpsToAClientThatTrustsTheCertificate() throws Exception {
        HttpResponse<String> created = send(trusting, "POST", https("/api/v1/apps"), "{\"name\":\"tls-shop\"}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        assertThat(created.body()).contains("\"token\"");
        HttpResponse<String> ready = send(trusting, "GET", https("/health/ready"), null);
        assertThat(ready.statusCode()).isEqualTo(200);
        assertThat(ready.sslSession()).isPresent();
        assertThat(ready.sslSession().get().getProtocol()).startsWith("TLSv1.");
        HttpResponse<String> byName =
                send(trusting, "GET", "https://localhost:" + node.httpPort() + "/api/v1/apps", null);
        assertThat(byName.statusCode()).as("by the certificate's other name").isEqualTo(200);
        assertThat(node.baseUrl())
                .as("the address the node announces to the cluster and the dashboard")
                .isEqualTo("https://127.0.0.1:" + node.httpPort());
    }

    @Test
    void plainHttpOnTheSamePortGetsNoAnswer() {
        HttpClient plain = client(HttpClient.newBuilder());
        assertThatThrownBy(() -> send(plain, "GET", "http://127.0.0.1:" + node.httpPort() + "/api/v1/apps", null))
                .as("a token sent in clear text must not be answered")
                .isInstanceOf(IOException.class);
    }

    @Test
    void aClientThatDoesNotTrustTheCertificateIsRefused() {
        HttpClient defaults = client(HttpClient.newBuilder());
        assertThatThrownBy(() -> send(defaults, "GET", https("/health/ready"), null))
                .isInstanceOf(SSLHandshakeException.class);
    }
}
