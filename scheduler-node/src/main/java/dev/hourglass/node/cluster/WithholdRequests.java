package dev.hourglass.node.cluster;

import dev.hourglass.node.background.DaemonThreads;
import dev.hourglass.node.core.port.AttemptHolders;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Requests to withhold a claimed attempt, from the node that cancels a job to the node that holds
 * its attempt ({@link AttemptHolders}), through ZooKeeper: the cluster's one channel that every
 * node already reaches, authenticates and trusts, whatever its HTTP listener looks like.
 *
 * <pre>
 * {root}/withhold/{holder}/{jobId}-{attempt}-{seq}   EPHEMERAL_SEQUENTIAL, created by the asker;
 *                                                    the holder writes its answer as the data
 * </pre>
 *
 * The asker creates the request, waits for its data to change (a watch, no polling) and deletes it;
 * being ephemeral, a request whose asker died goes with its session. The holder learns of requests
 * through the coordinator's cache of the cluster's znodes, answers from memory on a thread of its
 * own (never behind the coordinator's rebalancing), and writes the answer without waiting for it.
 * A request costs the asker two writes and the holder one; it is made only for a cancel that finds
 * the job's attempt claimed (within the claim lead of its fire time, or waiting at a full gate).
 */
final class WithholdRequests implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WithholdRequests.class);

    private final CuratorFramework client;
    private final String root;
    private final String self;
    private final ExecutorService answering =
            Executors.newSingleThreadExecutor(DaemonThreads.named("hourglass-withhold-answers"));

    WithholdRequests(CuratorFramework client, String root, String self) {
        this.client = client;
        this.root = root + "/withhold";
        this.self = self;
    }

    /** Answers this node's requests through {@code cache} (the coordinator's, of the whole root). */
    void answerThrough(CuratorCache cache, BiFunction<Long, Integer, AttemptHolders.Answer> holder) {
        String mine = root + "/" + self + "/";
        cache.listenable()
                .addListener(
                        CuratorCacheListener.builder()
                                .forCreates(data -> {
                                    if (data.getPath().startsWith(mine)
                                            && (data.getData() == null || data.getData().length == 0)) {
                                        answer(data.getPath(), holder);
                                    }
                                })
                                .build(),
                        answering);
    }

    private void answer(String path, BiFunction<Long, Integer, AttemptHolders.Answer> holder) {
        String[] parts = path.substring(path.lastIndexOf('/') + 1).split("-");
        AttemptHolders.Answer answer;
        try {
            answer = holder.apply(Long.parseLong(parts[0]), Integer.parseInt(parts[1]));
        } catch (RuntimeException e) {
            LOG.warn("request {} to withhold an attempt could not be answered: {}", path, e.toString());
            return; // the asker's wait ends without an answer: its change is not made
        }
        try {
            // version 0: the first answer stands (a request seen twice, after a reconnect, is not
            // answered again with what memory says by then)
            client.setData()
                    .withVersion(0)
                    .inBackground()
                    .forPath(path, answer.name().getBytes(StandardCharsets.UTF_8));
        } catch (Exception e) {
            LOG.warn("answering request {} failed: {}", path, e.toString());
        }
    }

    /**
     * Asks {@code holder} to withhold the attempt and waits up to {@code timeoutMs} for its answer;
     * empty if none came (also when this node cannot reach ZooKeeper now). Every ZooKeeper call is
     * made in the background, so the wait is bounded even while Curator retries a lost connection:
     * the caller holds the job's row lock and a database connection meanwhile.
     */
    Optional<AttemptHolders.Answer> ask(String holder, long jobId, int attempt, long timeoutMs) {
        if (!client.getZookeeperClient().isConnected()) {
            return Optional.empty();
        }
        CompletableFuture<AttemptHolders.Answer> answer = new CompletableFuture<>();
        AtomicReference<String> created = new AtomicReference<>();
        try {
            client.create()
                    .creatingParentContainersIfNeeded()
                    .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                    .inBackground((c, event) -> {
                        if (event.getResultCode() != KeeperException.Code.OK.intValue()) {
                            return; // the wait ends without an answer
                        }
                        created.set(event.getName());
                        if (answer.isDone()) { // gave up already: nobody is to answer it
                            delete(event.getName());
                        } else {
                            readAnswer(event.getName(), answer);
                        }
                    })
                    .forPath(root + "/" + holder + "/" + jobId + "-" + attempt + "-", new byte[0]);
            return Optional.of(answer.get(timeoutMs, TimeUnit.MILLISECONDS));
        } catch (TimeoutException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } catch (Exception e) {
            LOG.warn("asking {} to withhold attempt {} of job {} failed: {}", holder, attempt, jobId, e.toString());
            return Optional.empty();
        } finally {
            answer.complete(null); // before the path is read: see the create's callback
            String path = created.get();
            if (path != null) {
                delete(path);
            }
        }
    }

    /** Reads the request's data, and again whenever it changes, until the holder has answered. */
    private void readAnswer(String path, CompletableFuture<AttemptHolders.Answer> answer) {
        if (answer.isDone()) {
            return;
        }
        try {
            client.getData()
                    .usingWatcher((CuratorWatcher) e -> readAnswer(path, answer))
                    .inBackground((c, event) -> {
                        byte[] data = event.getData();
                        if (event.getResultCode() == KeeperException.Code.OK.intValue()
                                && data != null
                                && data.length > 0) {
                            answer.complete(AttemptHolders.Answer.valueOf(new String(data, StandardCharsets.UTF_8)));
                        }
                    })
                    .forPath(path);
        } catch (Exception e) {
            LOG.debug("reading the answer to {}: {}", path, e.toString()); // the wait ends without one
        }
    }

    private void delete(String path) {
        try {
            client.delete().guaranteed().inBackground().forPath(path);
        } catch (Exception e) {
            LOG.debug("deleting request {}: {}", path, e.toString()); // ephemeral: goes with the session
        }
    }

    @Override
    public void close() {
        answering.shutdownNow();
    }
}
