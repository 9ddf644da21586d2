package dev.hourglass.node.manage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.node.boot.HourglassNode;
import dev.hourglass.node.config.NodeConfig;
import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.EmbeddedMariaDb;
import dev.hourglass.node.testing.RunsAlongside;
import dev.hourglass.node.testing.TcpProxy;
import dev.hourglass.node.testing.TcpProxy.CommitCut;
import dev.hourglass.node.testing.TestNodes;
import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Group commit when the connection goes away during the commit, cut by a TCP proxy between the
 * node and MariaDB: after the server has the COMMIT (it commits; its answer is lost), and before
 * (it rolls back). Every caller must be answered what really happened: 201 with its job when the
 * group was stored, 503 only when it surely was not — a client that resends a 503'd submit without
 * a bizKey would otherwise create the job twice.
 */
@RunsAlongside
class AmbiguousCommitIT {
    static final int SUBMITS = 20;

    TcpProxy proxy;
    String direct;
    HourglassNode node;
    ApiClient app;

    @BeforeEach
    void start() throws Exception {
        direct = EmbeddedMariaDb.newDatabase();
        int port = URI.create(direct.substring("jdbc:".length())).getPort();
        proxy = new TcpProxy(port);
        NodeConfig c = TestNodes.config(direct.replace(":" + port + "/", ":" + proxy.port() + "/"));
        c.submits.writers = 1; // concurrent submits form groups behind one writer
        c.dubbo.enabled = false; // HTTP only
        node = HourglassNode.start(c);
        ApiClient admin = new ApiClient(node.baseUrl(), TestNodes.ADMIN_TOKEN);
        app = admin.as(admin.post("/api/v1/apps", "{\"name\":\"shop\"}")
                .json()
                .get("token")
                .asText());
        app.put("/api/v1/services/s", "{\"protocol\":\"HTTP\",\"url\":\"http://127.0.0.1:9/never\"}");
    }

    @AfterEach
    void stop() {
        if (node != null) {
            node.close();
        }
        if (proxy != null) {
            proxy.close();
        }
    }

    private record Answer(int status, String jobId) {}

    /** {@value #SUBMITS} single submits at once, no bizKey, due in ten minutes (none fires). */
    private List<Answer> concurrentSubmits() throws Exception {
        ExecutorService clients = Executors.newFixedThreadPool(SUBMITS);
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<Future<Answer>> futures = new ArrayList<>();
            for (int i = 0; i < SUBMITS; i++) {
                futures.add(clients.submit(() -> {
                    go.await();
                    ApiClient.Answer a = app.post("/api/v1/jobs", "{\"service\":\"s\",\"delayMs\":600000}");
                    return new Answer(
                            a.status(), a.status() == 201 ? a.json().get("id").asText() : null);
                }));
            }
            go.countDown();
            List<Answer> answers = new ArrayList<>();
            for (Future<Answer> f : futures) {
                answers.add(f.get(60, TimeUnit.SECONDS));
            }
            return answers;
        } finally {
            clients.shutdownNow();
        }
    }

    private Set<String> storedJobIds() throws Exception {
        Set<String> ids = new HashSet<>();
        try (Connection c = DriverManager.getConnection(direct, "root", "");
                ResultSet rs = c.createStatement().executeQuery("SELECT id FROM job_delay_task")) {
            while (rs.next()) {
                ids.add(Long.toString(rs.getLong(1)));
            }
        }
        return ids;
    }

    @Test
    void aGroupWhoseCommitAnswerWasLostIsAnsweredAsStored() throws Exception {
        proxy.cutAtCommitAfter("job_delay_task", CommitCut.AFTER_THE_SERVER_HAS_IT);

        List<Answer> answers = concurrentSubmits();

        assertThat(proxy.awaitCommitCut(10_000)).as("a group's commit was cut").isTrue();
        Set<String> stored = storedJobIds();
        System.out.printf("COMMIT CUT AFTER THE SERVER HAD IT: answers %s; %d jobs stored%n", answers, stored.size());
        assertThat(answers).as("every job was stored: every caller gets it").allMatch(a -> a.status() == 201);
        assertThat(stored)
                .containsExactlyInAnyOrderElementsOf(
                        answers.stream().map(Answer::jobId).toList());
    }

    @Test
    void aGroupWhoseCommitNeverReachedTheServerIsAnswered503AndNothingOfItIsStored() throws Exception {
        proxy.cutAtCommitAfter("job_delay_task", CommitCut.BEFORE_THE_SERVER_HAS_IT);

        List<Answer> answers = concurrentSubmits();

        assertThat(proxy.awaitCommitCut(10_000)).as("a group's commit was cut").isTrue();
        Set<String> stored = storedJobIds();
        System.out.printf("COMMIT CUT BEFORE THE SERVER HAD IT: answers %s; %d jobs stored%n", answers, stored.size());
        assertThat(answers).as("the cut group's callers").anyMatch(a -> a.status() == 503);
        assertThat(answers).allMatch(a -> a.status() == 201 || a.status() == 503);
        assertThat(stored)
                .as("exactly the jobs answered 201")
                .containsExactlyInAnyOrderElementsOf(answers.stream()
                        .filter(a -> a.status() == 201)
                        .map(Answer::jobId)
                        .toList());
    }
}
