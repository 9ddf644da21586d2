package dev.hourglass.bench;

import java.io.IOException;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.CloseableHttpResponse;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.StringEntity;

/**
 * Blocking keep-alive HTTP for the closed-loop submit clients. The JDK's HttpClient, asynchronous
 * underneath, cost the load generator about as much CPU as the node it measured (77 % against
 * 87 % of a core, at 1,300 submits/s on this 2-core machine); this one costs a few percent.
 */
final class SubmitClient implements AutoCloseable {
    private final CloseableHttpClient http;

    SubmitClient(int connections) {
        http = HttpClients.custom()
                .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
                        .setMaxConnTotal(connections)
                        .setMaxConnPerRoute(connections)
                        .build())
                .disableAutomaticRetries() // a submit is answered once; a failure is counted
                .build();
    }

    /** POSTs a JSON body; returns the status code (the body is read and dropped). */
    int post(String url, String token, String json) throws IOException {
        HttpPost post = new HttpPost(url);
        post.setHeader("Authorization", "Bearer " + token);
        post.setEntity(new StringEntity(json, ContentType.APPLICATION_JSON));
        try (CloseableHttpResponse response = http.execute(post)) {
            EntityUtils.consume(response.getEntity());
            return response.getCode();
        }
    }

    @Override
    public void close() throws IOException {
        http.close();
    }
}
