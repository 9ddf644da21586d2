package dev.hourglass.examples;

import com.sun.net.httpserver.HttpServer;
import dev.hourglass.api.CallbackResult;
import dev.hourglass.sdk.http.CallbackHandler;
import java.net.InetSocketAddress;

/**
 * An HTTP service's receiver: {@code java ... HttpCallbackExample 9000 <signingSecret>}, then
 * {@code PUT /api/v1/services/close-order {"protocol":"HTTP","url":"http://127.0.0.1:9000/close"}}.
 */
public final class HttpCallbackExample {
    public static void main(String[] args) throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", Integer.parseInt(args[0])), 0);
        server.createContext(
                "/close",
                new CallbackHandler(args[1], request -> {
                            System.out.printf(
                                    "closing order %s (attempt %d): %s%n",
                                    request.getBizKey(), request.getAttempt(), request.getPayload());
                            return CallbackResult.success(); // or retryAfter(ms, why), or fail(why)
                        })
                        .asHttpHandler());
        server.start();
    }
}
