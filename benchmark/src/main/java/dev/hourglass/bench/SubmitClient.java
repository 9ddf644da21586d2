package dev.hourglass.bench;

import java.io.IOException;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.CloseableHttpResponse;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.ParseException;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.StringEntity;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.util.Timeout;

/**
 * Blocking keep-alive HTTP for the closed-loop clients: submits, and the pull consumers' reserves
 * and results. The JDK's HttpClient, asynchronous underneath, cost the load generator about as
 * much CPU as the node it measured (77 % against 87 % of a core, at 1,300 submits/s on this 2-core
 * machine); this one costs a few percent.
 */
final class SubmitClient implements AutoCloseable {
    private final CloseableHttpClient http;

    SubmitClient(int connections) {
        this(connections, null);
    }

    /**
     * @param responseTimeout how long a request waits for its answer at most (null: the client's
     *     default); a long-polling reserve needs more than its {@code waitMs}
     */
    SubmitClient(int connections, Timeout responseTimeout) {
        var builder = HttpClients.custom()
                .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
                        .setMaxConnTotal(connections)
                        .setMaxConnPerRoute(connections)
                        .build())
                .disableAutomaticRetries(); // a request is answered once; a failure is counted
        if (responseTimeout != null) {
            builder.setDefaultRequestConfig(RequestConfig.custom()
                    .setConnectTimeout(Timeout.ofSeconds(5))
                    .setResponseTimeout(responseTimeout)
                    .build());
        }
        http = builder.build();
    }

    /** POSTs a JSON body; returns the status code (the body is read and dropped). */
    int post(String url, String token, String json) throws IOException {
        HttpPost post = request(url, token, json);
        try (CloseableHttpResponse response = http.execute(post)) {
            EntityUtils.consume(response.getEntity());
            return response.getCode();
        }
    }

    /** An answer's status and body. */
    record Answer(int status, String body) {}

    /** POSTs a JSON body; returns the status and the body. */
    Answer exchange(String url, String token, String json) throws IOException {
        HttpPost post = request(url, token, json);
        try (CloseableHttpResponse response = http.execute(post)) {
            String body = response.getEntity() == null ? "" : EntityUtils.toString(response.getEntity());
            return new Answer(response.getCode(), body);
        } catch (ParseException e) {
            throw new IOException("unreadable answer from " + url, e);
        }
    }

    private static HttpPost request(String url, String token, String json) {
        HttpPost post = new HttpPost(url);
        post.setHeader("Authorization", "Bearer " + token);
        post.setEntity(new StringEntity(json, ContentType.APPLICATION_JSON));
        return post;
    }

    /**
     * Closes every connection now, those of requests still waiting for their answer included: each
     * such request fails at once with an IOException (how a long poll is ended early).
     */
    void abort() {
        http.close(CloseMode.IMMEDIATE);
    }

    @Override
    public void close() throws IOException {
        http.close();
    }
}
