package dev.hourglass.node.tenant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hourglass.api.DelayJobService;
import dev.hourglass.api.ErrorCode;
import dev.hourglass.api.HourglassException;
import dev.hourglass.node.config.NodeConfig;
import dev.hourglass.node.testing.NodeFixture;
import dev.hourglass.node.testing.RunsAlongside;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.dubbo.common.logger.LoggerFactory;
import org.apache.dubbo.config.ApplicationConfig;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;
import org.apache.dubbo.rpc.RpcContext;
import org.apache.dubbo.rpc.model.ApplicationModel;
import org.apache.dubbo.rpc.model.FrameworkModel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Failed authentications are limited per client address on a real node: after the threshold an
 * address gets 429 RATE_LIMITED with {@code Retry-After} for every token the node cannot vouch for
 * without a database read (and for the admin token), while app tokens it has seen valid are still
 * served there, and other addresses are served as before. Other client addresses are other loopback addresses
 * (127.0.0.2, 127.0.0.3: all of 127/8 is loopback on Linux), reached with a raw HTTP/1.1 request
 * from a socket bound to them. Over Dubbo the peer address counts the same way, and one limit
 * covers both front doors.
 */
@RunsAlongside
class FailedAuthIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The default of auth.maxFailures: these tests run a node as configured out of the box. */
    private static final int MAX_FAILURES = new NodeConfig().auth.maxFailures;

    NodeFixture f;

    @BeforeEach
    void start() throws Exception {
        f = new NodeFixture();
    }

    @AfterEach
    void stop() {
        f.close();
    }

    record Raw(int status, Map<String, String> headers, String body) {
        JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new AssertionError("not JSON (" + status + "): " + body, e);
            }
        }
    }

    /** GET {@code path} with {@code token}, sent from the local address {@code from}. */
    private Raw get(String from, String path, String token) throws IOException {
        try (Socket s = new Socket()) {
            s.setSoTimeout(10_000);
            s.bind(new InetSocketAddress(InetAddress.getByName(from), 0));
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), f.node.httpPort()), 5_000);
            OutputStream out = s.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token
                            + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            in.transferTo(all);
            String text = all.toString(StandardCharsets.UTF_8);
            int end = text.indexOf("\r\n\r\n");
            String[] lines = text.substring(0, end).split("\r\n");
            Map<String, String> headers = new LinkedHashMap<>();
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                headers.put(
                        lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
                        lines[i].substring(colon + 1).trim());
            }
            String body = text.substring(end + 4);
            if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
                body = unchunk(body);
            }
            return new Raw(Integer.parseInt(lines[0].split(" ")[1]), headers, body);
        }
    }

    private static String unchunk(String chunked) {
        StringBuilder out = new StringBuilder();
        int at = 0;
        while (true) {
            int eol = chunked.indexOf("\r\n", at);
            int size = Integer.parseInt(chunked.substring(at, eol).trim(), 16);
            if (size == 0) {
                return out.toString();
            }
            out.append(chunked, eol + 2, eol + 2 + size);
            at = eol + 2 + size + 2;
        }
    }

    @Test
    void anAddressThatKeepsFailingIsRateLimitedAndOtherAddressesAreNot() throws Exception {
        String attacker = "127.0.0.2";
        for (int i = 1; i <= MAX_FAILURES; i++) {
            Raw wrong = get(attacker, "/api/v1/jobs", "hg_guess-" + i);
            assertThat(wrong.status()).as("failure " + i + ": " + wrong.body()).isEqualTo(401);
        }
        Raw limited = get(attacker, "/api/v1/jobs", "hg_guess-next");
        assertThat(limited.status()).as(limited.body()).isEqualTo(429);
        assertThat(limited.json().path("error").path("code").asText()).isEqualTo("RATE_LIMITED");
        assertThat(Long.parseLong(limited.headers().get("retry-after"))).isBetween(1L, 60L);
        assertThat(get(attacker, "/api/v1/jobs", f.appToken).status())
                .as("a token this node never saw valid is refused at a blocked address: it cannot be told from a guess")
                .isEqualTo(429);

        assertThat(f.app.get("/api/v1/jobs").status())
                .as("127.0.0.1, valid token")
                .isEqualTo(200);
        assertThat(get("127.0.0.3", "/api/v1/jobs", f.appToken).status()).isEqualTo(200);
        assertThat(get("127.0.0.3", "/api/v1/jobs", "hg_guess-1").status())
                .as("another address's failures are its own")
                .isEqualTo(401);

        Raw seen = get(attacker, "/api/v1/jobs", f.appToken);
        assertThat(seen.status())
                .as("the same token, seen valid now, at the blocked address: " + seen.body())
                .isEqualTo(200);
        assertThat(get(attacker, "/api/v1/jobs", f.admin.token()).status())
                .as("the admin token at the blocked address: guesses at it stay limited")
                .isEqualTo(429);
        assertThat(get(attacker, "/api/v1/jobs", "hg_guess-other").status())
                .as("still blocked for guesses")
                .isEqualTo(429);
    }

    @Test
    void dubboCallsCountAgainstTheSameAddressAndGetRateLimited() throws IOException {
        FrameworkModel framework = new FrameworkModel();
        LoggerFactory.setLoggerAdapter(framework, "slf4j");
        DubboBootstrap client = DubboBootstrap.newInstance(framework);
        try {
            ApplicationModel model = client.getApplicationModel();
            ApplicationConfig application = new ApplicationConfig(model, "guessing-client");
            application.setQosEnable(false);
            application.setMetadataType("local");
            ReferenceConfig<DelayJobService> reference = new ReferenceConfig<>(model.getDefaultModule());
            reference.setInterface(DelayJobService.class);
            reference.setUrl("dubbo://127.0.0.1:" + f.node.dubboPort());
            reference.setRetries(0);
            reference.setTimeout(10_000);
            client.application(application).reference(reference).start();
            DelayJobService service = reference.get();
            for (int i = 1; i <= MAX_FAILURES; i++) {
                RpcContext.getClientAttachment().setAttachment(DelayJobService.TOKEN_ATTACHMENT, "hg_guess-" + i);
                HourglassException e = catchThrowableOfType(HourglassException.class, () -> service.get("1"));
                assertThat(e.code()).as("failure " + i).isEqualTo(ErrorCode.UNAUTHENTICATED);
            }
            RpcContext.getClientAttachment().setAttachment(DelayJobService.TOKEN_ATTACHMENT, f.appToken);
            HourglassException limited = catchThrowableOfType(HourglassException.class, () -> service.get("1"));
            assertThat(limited.getClass()).as("the API's own class").isEqualTo(HourglassException.class);
            assertThat(limited.code()).isEqualTo(ErrorCode.RATE_LIMITED);
            assertThat(limited.getMessage()).contains("try again in");
        } finally {
            client.stop();
            framework.destroy();
        }
        assertThat(f.app.get("/api/v1/jobs").status())
                .as("HTTP from the same address (127.0.0.1), a token this node never saw valid")
                .isEqualTo(429);
        assertThat(get("127.0.0.2", "/api/v1/jobs", f.appToken).status()).isEqualTo(200);
        assertThat(f.app.get("/api/v1/jobs").status())
                .as("HTTP from the blocked address once the token was seen valid")
                .isEqualTo(200);
    }
}
