package dev.hourglass.node.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.RunsAlongside;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.Test;

/** Acknowledged submits survive kill -9 of the standalone node (see {@link StandaloneCrash}). */
@RunsAlongside
class StandaloneCrashIT extends StandaloneCrash {
    static final int SUBMIT_ROUNDS = 10;
    /** The jobs are due an hour after their submit: never fired during the test. */
    static final long DELAY_MS = 3_600_000;

    static final int JOBS_PER_SUBMIT_ROUND = 300;
    static final int SUBMIT_CLIENTS = 4;

    private void restartAfterKill9() throws Exception {
        node.kill9();
        node = startNode();
    }

    @Test
    void everyAcknowledgedSubmitSurvivesKill9RightAfterItsAnswer() throws Exception {
        ApiClient app = newApp("shop");
        assertThat(app.put("/api/v1/services/later", "{\"protocol\":\"HTTP\",\"url\":\"" + receiver.url() + "\"}")
                        .status())
                .isEqualTo(200);
        List<String> lost = new ArrayList<>();
        long started = System.currentTimeMillis();
        for (int round = 1; round <= SUBMIT_ROUNDS; round++) {
            ApiClient client = onCurrentNode(app);
            long roundStart = System.nanoTime();
            long firstFireAt = System.currentTimeMillis() + DELAY_MS;
            List<String> acknowledged = submittedConcurrently(client);
            long lastFireAt = System.currentTimeMillis() + DELAY_MS;
            long submitMs = (System.nanoTime() - roundStart) / 1_000_000;
            restartAfterKill9();
            ApiClient after = onCurrentNode(app);
            List<String> missing = missingOf(after, acknowledged, firstFireAt, lastFireAt);
            System.out.printf(
                    "STANDALONE-CRASH submit round %d: %d single submits from %d clients in %d ms, kill -9 at once, %d missing"
                            + " after restart%n",
                    round, JOBS_PER_SUBMIT_ROUND, SUBMIT_CLIENTS, submitMs, missing.size());
            for (String id : missing) {
                lost.add("round " + round + " job " + id + " (log " + node.log() + ")");
            }
        }
        System.out.printf(
                "STANDALONE-CRASH submit: %d rounds in %d ms%n", SUBMIT_ROUNDS, System.currentTimeMillis() - started);
        assertThat(lost)
                .as(lost.size() + " of " + SUBMIT_ROUNDS * JOBS_PER_SUBMIT_ROUND
                        + " acknowledged jobs lost by kill -9 of the standalone node (docs/api.md, \"Guarantees\")")
                .isEmpty();
    }

    /**
     * The round's single submits from {@code SUBMIT_CLIENTS} clients at once, as a service's
     * request threads send them: concurrent submits are committed in groups, and every job of a
     * group is acknowledged by the one commit. The ids acknowledged, in the order of their answers.
     */
    private static List<String> submittedConcurrently(ApiClient client) throws Exception {
        List<String> acknowledged = Collections.synchronizedList(new ArrayList<>());
        byClients(JOBS_PER_SUBMIT_ROUND, i -> {
            ApiClient.Answer a = client.post(
                    "/api/v1/jobs",
                    "{\"service\":\"later\",\"delayMs\":" + DELAY_MS + ",\"payload\":{\"i\":" + i + "}}");
            assertThat(a.status()).as(a.text()).isEqualTo(201);
            acknowledged.add(a.json().get("id").asText());
        });
        return acknowledged;
    }

    /**
     * The acknowledged jobs the node does not have. The round's jobs are listed by their fire time
     * (due {@code DELAY_MS} after their submit, between {@code firstFireAt} and {@code lastFireAt}),
     * 500 a page; those the pages leave out are looked up by id, by as many clients as submitted
     * them, and only a 404 there counts as lost. (300 lookups by id took a second of each round.)
     */
    private static List<String> missingOf(
            ApiClient client, List<String> acknowledged, long firstFireAt, long lastFireAt) throws Exception {
        Set<String> listed = listedIds(
                client,
                "/api/v1/jobs?service=later&fireFrom=" + (firstFireAt - 1_000) + "&fireTo=" + (lastFireAt + 1_000)
                        + "&limit=500");
        List<String> unlisted =
                acknowledged.stream().filter(id -> !listed.contains(id)).toList();
        List<String> missing = Collections.synchronizedList(new ArrayList<>());
        byClients(unlisted.size(), i -> {
            if (!exists(client, unlisted.get(i))) {
                missing.add("#" + acknowledged.indexOf(unlisted.get(i)) + " " + unlisted.get(i));
            }
        });
        return missing;
    }

    /** {@code work} for 0..count-1 on {@code SUBMIT_CLIENTS} threads: thread c does c, c + SUBMIT_CLIENTS, ... */
    private static void byClients(int count, IntConsumer work) throws Exception {
        ExecutorService clients = Executors.newFixedThreadPool(SUBMIT_CLIENTS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < SUBMIT_CLIENTS; c++) {
                int first = c;
                done.add(clients.submit(() -> {
                    for (int i = first; i < count; i += SUBMIT_CLIENTS) {
                        work.accept(i);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(5, TimeUnit.MINUTES); // a bound for a hung node, not a measure: a round takes seconds
            }
        } finally {
            clients.shutdownNow();
        }
    }
}
