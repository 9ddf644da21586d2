package dev.hourglass.node.cluster;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hourglass.node.background.DaemonThreads;
import dev.hourglass.node.core.cluster.Assignment;
import dev.hourglass.node.core.cluster.Member;
import dev.hourglass.node.core.port.AttemptHolders;
import dev.hourglass.node.core.port.Coordination;
import dev.hourglass.node.core.shard.ShardAssigner;
import dev.hourglass.node.core.shard.ShardOwnership;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.function.Supplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cluster membership, master election and shard assignment on ZooKeeper (Apache Curator).
 *
 * <pre>
 * {root}/nodes/{nodeId}   EPHEMERAL   Member as JSON (id, address, version, load figures)
 * {root}/leaving/{nodeId} EPHEMERAL   a member stopping gracefully, or cut off the database: no shards, still a member
 * {root}/leader           LeaderLatch the master election
 * {root}/assignment       PERSISTENT  Assignment as JSON (epoch, master, node -> shards)
 * {root}/withhold/...     EPHEMERAL   requests to withhold a claimed attempt ({@link WithholdRequests})
 * </pre>
 *
 * <p>The master recomputes the assignment ({@link ShardAssigner}: balanced, fewest moves) whenever
 * the members change or it becomes master, and writes it with a conditional set, so a deposed
 * master cannot overwrite a newer epoch. Every node watches the assignment and applies its own
 * shards to {@link ShardOwnership}.
 *
 * <p>A connection loss (SUSPENDED) is not a session loss: a ZooKeeper leader election or a rolling
 * restart of the ensemble suspends every client for a second or two, and giving up every shard
 * then would stop firing cluster-wide. So the node keeps firing its last-known shards while
 * SUSPENDED — the database is the fence: claims are conditional updates, and nobody else takes an
 * attempt this node claimed before its deadline — and gives them up only when the suspension has
 * lasted a third of the session timeout. The client notices a silent connection after two thirds of
 * the session timeout at the latest, so the node stops no later than the session timeout after its
 * last contact: before the server can expire its session and the master can hand its shards to
 * another node. On LOST it gives up every shard at once. On RECONNECTED it reads its shards again.
 *
 * <p>Those events arrive through threads that a frozen process (SIGSTOP, a long GC pause) stops
 * too, so on waking the node would act on its stale shards until it has heard of its session loss.
 * Hence the {@link ContactLease}: a small read every second (a quarter of the session timeout at
 * most) renews it, the engine claims and sends only while it is held, and it lapses by monotonic
 * time alone two thirds of the session timeout after the last read that succeeded.
 *
 * <p>Thread-safety: Curator callbacks and master work run on one single-threaded executor.
 */
public final class CuratorCoordinator implements Coordination, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CuratorCoordinator.class);
    /**
     * Members and assignments are read by nodes of other versions during a rolling upgrade: a
     * field one version adds must not make an older one unable to read the record.
     */
    private static final ObjectMapper JSON =
            new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private final String root;
    private final String nodeId;
    private final int shardCount;
    private final ShardOwnership ownership;
    private final Supplier<Member> self;
    private final CuratorFramework client;
    private final ExecutorService events = Executors.newSingleThreadExecutor(DaemonThreads.named("hourglass-cluster"));
    private final java.util.concurrent.ScheduledExecutorService heartbeat =
            Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("hourglass-cluster-heartbeat"));
    private final java.util.concurrent.ScheduledExecutorService leaseRenewal =
            Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("hourglass-cluster-lease"));
    /**
     * Curator's own executor for its "run safe" notifications is never shut down by its close(),
     * so each coordinator left a thread behind (seen in the test JVM, one per node started): ours
     * is closed with the coordinator.
     */
    private final ExecutorService curatorNotifications =
            Executors.newSingleThreadExecutor(DaemonThreads.named("hourglass-cluster-curator-notify"));

    private final ContactLease lease = new ContactLease();
    /** Fed by the lease renewal alone. */
    private final CuratorBlindnessWatch curatorBlindness;

    private final LeaderLatch latch;
    private final WithholdRequests withholdRequests;
    private volatile boolean cacheInitialized;
    private volatile java.util.function.BiFunction<Long, Integer, AttemptHolders.Answer> attemptHolder;
    private final int sessionTimeoutMs;
    private final Listeners listeners;
    private WorkerIdLease workerIds;
    private volatile java.util.concurrent.ScheduledFuture<?> giveUpAfterSuspension;
    private CuratorCache cache;
    private PersistentNode member;
    private volatile boolean leaving;
    /** {@link #close()} began. */
    private volatile boolean closing;
    /** This node cannot reach the database ({@link #stepBack}): no shards, still a member. */
    private volatile boolean steppedBack;
    /** The {@code leaving} znode was created (this session or an earlier one) and not withdrawn since. */
    private volatile boolean leaveAnnounced;

    private final Object applying = new Object();
    private volatile Assignment assignment = Assignment.NONE;
    private volatile boolean connected;
    /** Members already warned about as unreadable (one warning each). */
    private final java.util.Set<String> unreadableMembers = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** @param auth the node's ZooKeeper credential and the ACLs of the cluster's znodes ({@link ZooKeeperAuth}) */
    public CuratorCoordinator(
            String connectString,
            ZooKeeperAuth auth,
            String root,
            int sessionTimeoutMs,
            String nodeId,
            int shardCount,
            ShardOwnership ownership,
            Supplier<Member> self,
            Listeners listeners) {
        this.root = root.endsWith("/") ? root.substring(0, root.length() - 1) : root;
        this.nodeId = nodeId;
        this.shardCount = shardCount;
        this.ownership = ownership;
        this.self = self;
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.listeners = listeners;
        // a reconnection's SyncConnected is handled within milliseconds of the session answering;
        // seconds of "disconnected" on a session that answers is Curator's stuck state (at most
        // 10 s of it, whatever the session: the node is out of the cluster meanwhile)
        this.curatorBlindness =
                new CuratorBlindnessWatch(Duration.ofMillis(Math.min(10_000, Math.max(2_000, sessionTimeoutMs / 2))));
        this.client = auth.applyTo(
                        CuratorFrameworkFactory.builder()
                                .connectString(connectString)
                                .sessionTimeoutMs(sessionTimeoutMs)
                                .connectionTimeoutMs(Math.min(sessionTimeoutMs, 5_000))
                                .retryPolicy(new ExponentialBackoffRetry(200, 10, 2_000))
                                .runSafeService(curatorNotifications),
                        this.root)
                .build();
        this.latch = new LeaderLatch(client, this.root + "/leader", nodeId);
        this.withholdRequests = new WithholdRequests(client, this.root, nodeId);
        ownership.leaseFrom(() -> lease.held(System.nanoTime()));
    }

    /**
     * What the node hears from the cluster, on the coordinator's thread.
     *
     * @param nodeLeft another node left the cluster (its session ended)
     * @param workerIdChanged the worker id this node leases for job ids, at start and whenever a
     *     session loss made it take a new lease
     */
    public record Listeners(Consumer<String> nodeLeft, IntConsumer workerIdChanged) {
        public static final Listeners NONE = new Listeners(n -> {}, w -> {});
    }

    /** {@link #connect()} then {@link #join()}. */
    public void start() throws Exception {
        connect();
        join();
    }

    /**
     * Connects to ZooKeeper and leases this node's worker id for job ids (reported to
     * {@code workerIdChanged} before this returns), so ids are unique before the node takes any
     * submit. Returns the worker id.
     */
    public int connect() throws Exception {
        client.getConnectionStateListenable().addListener((c, state) -> onConnectionState(state), events);
        client.start();
        if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("ZooKeeper is not reachable");
        }
        connected = true;
        long renewEveryMs = Math.max(100, Math.min(1_000, sessionTimeoutMs / 4));
        leaseRenewal.scheduleWithFixedDelay(this::renewLease, 0, renewEveryMs, TimeUnit.MILLISECONDS);
        workerIds = new WorkerIdLease(client, root + "/workers", nodeId);
        int worker = workerIds.ensureHeld();
        listeners.workerIdChanged().accept(worker);
        return worker;
    }

    /** Joins the cluster; returns once this node is registered (its shards follow asynchronously). */
    public void join() throws Exception {
        client.createContainers(root + "/nodes");
        // an earlier life of this node id that announced its leave and died before its session
        // ended would keep this node out of the assignment until that session expires
        client.delete().quietly().forPath(root + "/leaving/" + nodeId);
        register();
        cache = CuratorCache.build(client, root);
        cache.listenable()
                .addListener(
                        CuratorCacheListener.builder()
                                .forAll((type, oldData, data) -> {
                                    String path = data != null ? data.getPath() : oldData.getPath();
                                    if (path.equals(root + "/assignment")) {
                                        applyAssignment();
                                    } else if ((path.startsWith(root + "/nodes/")
                                                    || path.startsWith(root + "/leaving/"))
                                            && type != CuratorCacheListener.Type.NODE_CHANGED) {
                                        if (type == CuratorCacheListener.Type.NODE_DELETED
                                                && path.startsWith(root + "/nodes/")) {
                                            String left = path.substring(path.lastIndexOf('/') + 1);
                                            if (!left.equals(nodeId)) {
                                                listeners.nodeLeft().accept(left);
                                            }
                                        }
                                        rebalanceIfMaster();
                                    }
                                })
                                .build(),
                        events);
        if (attemptHolder != null) {
            withholdRequests.answerThrough(cache, attemptHolder);
        }
        cache.listenable()
                .addListener(CuratorCacheListener.builder()
                        .forInitialized(() -> cacheInitialized = true)
                        .build());
        cache.start();
        latch.addListener(
                new LeaderLatchListener() {
                    @Override
                    public void isLeader() {
                        LOG.info("{} is the master", nodeId);
                        rebalanceIfMaster();
                    }

                    @Override
                    public void notLeader() {
                        LOG.info("{} is no longer the master", nodeId);
                    }
                },
                events);
        latch.start();
        heartbeat.scheduleWithFixedDelay(this::publishSelf, 2, 2, TimeUnit.SECONDS);
        heartbeat.scheduleWithFixedDelay(() -> events.execute(this::reconcile), 2, 2, TimeUnit.SECONDS);
        events.execute(this::applyAssignment);
    }

    /**
     * Our membership znode, kept by Curator's {@link PersistentNode}: re-created after a session
     * loss under the new session (a plain create would leave the old session's node, which the
     * server deletes when that session finally times out, taking our membership with it).
     */
    private void register() throws Exception {
        member = new PersistentNode(client, CreateMode.EPHEMERAL, false, root + "/nodes/" + nodeId, json(self.get()));
        member.start();
        if (!member.waitForInitialCreate(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("could not register " + nodeId + " in ZooKeeper");
        }
    }

    /**
     * One round trip to the server on the raw ZooKeeper handle (no Curator retries: a failure is
     * just a renewal missed); the lease counts from before the request was sent.
     */
    private void renewLease() {
        try {
            org.apache.zookeeper.ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
            long session = zk.getSessionId();
            long sentAt = System.nanoTime();
            // a sync goes through the ensemble's leader, and ZooKeeper answers a session's requests
            // in order: a follower cut off from the leader cannot answer the read that follows
            // while the leader expires the session, as it could answer a plain read from its own
            // copy. The read's own answer is waited for (it comes on the connection's thread); the
            // sync's callback is not (it comes on the event thread, which may be busy)
            zk.sync(root, (rc, path, ctx) -> {}, null);
            zk.exists(root, false);
            if (zk.getSessionId() == session) {
                lease.heard(session, sentAt, zk.getSessionTimeout());
                if (curatorBlindness.answered(
                        session, client.getZookeeperClient().isConnected(), System.nanoTime())) {
                    heartbeat.execute(() -> reopenSession(session));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            curatorBlindness.failed();
            LOG.debug("renewing the ZooKeeper lease failed: {}", e.toString());
        }
    }

    /**
     * Curator has called {@code session} disconnected for seconds while it answered our requests
     * ({@link CuratorBlindnessWatch}): a new session, opened from our thread, brings Curator's
     * RECONNECTED, on which its recipes and this coordinator rebuild. Closing the stuck session at
     * once also removes whatever it created, rather than after its timeout.
     */
    private void reopenSession(long session) {
        if (closing) {
            return; // a session opened now would outlive the client's close
        }
        try {
            var zookeeperClient = client.getZookeeperClient();
            org.apache.zookeeper.ZooKeeper zk = zookeeperClient.getZooKeeper();
            if (zookeeperClient.isConnected()
                    || zk.getSessionId() != session
                    || !zk.getState().isConnected()) {
                return; // Curator caught up meanwhile
            }
            LOG.warn(
                    "ZooKeeper session 0x{} answers but Curator has reported it disconnected for seconds"
                            + " (Curator's race on session expiry, CURATOR-367): opening a new session",
                    Long.toHexString(session));
            zookeeperClient.reset(); // Curator's own remedy for a stuck connection (CURATOR-561)
        } catch (Exception e) {
            LOG.warn("opening a new ZooKeeper session failed (tried again): {}", e.toString());
        }
    }

    /** The session of the ZooKeeper handle now (0 when there is none). */
    private long currentSession() {
        try {
            return client.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            return 0;
        }
    }

    private void publishSelf() {
        try {
            if (connected && member != null) {
                member.setData(json(self.get()));
            }
        } catch (Exception e) {
            LOG.debug("publishing load figures failed: {}", e.toString());
        }
    }

    private void onConnectionState(ConnectionState state) {
        switch (state) {
            case SUSPENDED -> {
                connected = false;
                long graceMs = sessionTimeoutMs / 3;
                LOG.warn("ZooKeeper connection suspended: firing the last-known shards for {} ms more", graceMs);
                giveUpAfterSuspension = heartbeat.schedule(
                        () -> events.execute(() -> giveUpShards("suspended for " + graceMs + " ms")),
                        graceMs,
                        TimeUnit.MILLISECONDS);
            }
            case LOST -> {
                connected = false;
                cancelGiveUp();
                giveUpShards("session lost");
            }
            case RECONNECTED -> {
                cancelGiveUp();
                connected = true; // the PersistentNode re-registers us by itself
                leaseRenewal.execute(this::renewLease); // not a second later
                renewWorkerId();
                if (leaving || steppedBack) {
                    announceLeaving(); // the ephemeral announcement went with a lost session
                }
                applyAssignment();
                rebalanceIfMaster();
            }
            default -> {}
        }
    }

    /** After a reconnect: the worker id's ephemeral lease is gone if the session was. */
    private void renewWorkerId() {
        if (workerIds == null) {
            return;
        }
        int before = workerIds.held();
        try {
            int now = workerIds.ensureHeld();
            if (now != before) {
                listeners.workerIdChanged().accept(now);
            }
        } catch (Exception e) {
            LOG.warn("renewing the worker id lease failed (job ids stay unique by the primary key): {}", e.toString());
        }
    }

    private void cancelGiveUp() {
        var pending = giveUpAfterSuspension;
        if (pending != null) {
            pending.cancel(false);
        }
    }

    private void giveUpShards(String why) {
        if (connected) {
            return; // reconnected meanwhile
        }
        if (!ownership.current().isEmpty()) {
            LOG.warn("ZooKeeper {}: giving up every shard until reconnected", why);
        }
        ownership.replace(List.of());
    }

    /**
     * Events drive the assignment, but one that is missed or fails (a rebalance that hit a
     * connection loss, a watch that fired while this node was not yet master) must not leave shards
     * unowned until the next membership change: every node re-reads its shards, and the master
     * re-checks the assignment against the live members, every two seconds. Both are no-ops when
     * nothing changed (two small reads).
     */
    private void reconcile() {
        if (!connected) {
            return;
        }
        // an announcement or a withdrawal that failed (ZooKeeper away at that moment) is made now:
        // a node that takes no shards while the master still assigns it some would strand them
        boolean out = leaving || steppedBack;
        if (out && !leaveAnnounced) {
            announceLeaving();
        } else if (!out && leaveAnnounced) {
            withdrawLeave();
        }
        applyAssignment();
        rebalanceIfMaster();
    }

    /**
     * A graceful stop's first cluster step: this node gives up its shards and takes none again (the
     * periodic reconcile would otherwise re-apply the assignment), then tells the master, which
     * hands its shards on at once, while this node stays a member. Its engine gives back what it
     * claimed but has not sent before the master hands the shards on, so the new owners read those
     * jobs as DELAYED when they load them.
     *
     * <p>Staying a member until {@link #close()} is what keeps a delivery under way from being sent
     * twice: the new owners end the RUNNING attempts of a node that is no longer a member at once
     * (it will never write their results) and send them again, but leave those of a live member to
     * its result or their deadline. So the node leaves only once its deliveries have ended and
     * their results are written (docs/cluster.md, "Stopping a node").
     */
    public void stopTakingShards() {
        synchronized (applying) { // not between an assignment's check of the flag and its replace
            leaving = true;
            ownership.replace(List.of());
        }
        announceLeaving();
    }

    /**
     * This node cannot reach the database ({@link DatabaseLossWatch}): it gives up its shards and
     * asks for none, announced like a leave, so the master hands them to members that can fire them;
     * it stays a member, so the new owners leave its attempts under way to their results or their
     * deadlines (it may have sent them). Without this, a node cut off the database but not off
     * ZooKeeper would hold its share of the jobs for as long as the cut lasts. If every member steps
     * back (the database is down for all), the master keeps the assignment as it is: nobody could
     * do better, and nothing moves. {@link #stepForward()} undoes it.
     */
    public void stepBack(String why) {
        synchronized (applying) {
            if (steppedBack || leaving) {
                return;
            }
            steppedBack = true;
            ownership.replace(List.of());
        }
        LOG.warn(
                "{} steps back ({}): its shards go to the other members until it reaches the database again",
                nodeId,
                why);
        announceLeaving();
    }

    /** The database answers again: this node asks for shards again (unless it is stopping). */
    public void stepForward() {
        synchronized (applying) {
            if (!steppedBack) {
                return;
            }
            steppedBack = false;
        }
        if (leaving) {
            return;
        }
        LOG.info("{} reaches the database again: it takes shards again", nodeId);
        withdrawLeave();
        applyAssignment();
    }

    private void withdrawLeave() {
        if (!connected) {
            return; // the periodic reconcile withdraws it once connected
        }
        try {
            client.delete().quietly().forPath(root + "/leaving/" + nodeId);
            leaveAnnounced = false;
        } catch (Exception e) {
            LOG.warn("withdrawing the announcement failed (the periodic reconcile tries again): {}", e.toString());
        }
    }

    /** True while this node cannot reach the database and has handed its shards on. */
    public boolean steppedBack() {
        return steppedBack;
    }

    private void announceLeaving() {
        if (!connected) {
            return; // nobody to tell: the master hands the shards on when this node's session ends
        }
        try {
            client.create()
                    .creatingParentContainersIfNeeded()
                    .withMode(CreateMode.EPHEMERAL)
                    .forPath(root + "/leaving/" + nodeId);
            leaveAnnounced = true;
            LOG.info(
                    "{} takes no shards ({}): they go to the other members",
                    nodeId,
                    leaving ? "stopping" : "stepped back");
        } catch (KeeperException.NodeExistsException e) {
            leaveAnnounced = true; // announced already
        } catch (Exception e) {
            // the periodic reconcile tries again; a stopping node's shards move when it leaves anyway
            LOG.warn("announcing that this node takes no shards failed: {}", e.toString());
        }
    }

    /** Reads the assignment and applies this node's shards (none while disconnected, leaving or stepped back). */
    private void applyAssignment() {
        try {
            // the session before the read: if it changes during the read, the lease is not held
            // (the lease's session is the new one) until the next read, which is the safe side
            long session = currentSession();
            byte[] data = client.getData().forPath(root + "/assignment");
            Assignment read = JSON.readValue(data, Assignment.class);
            if (read.epoch() < assignment.epoch()) {
                return;
            }
            assignment = read;
            synchronized (applying) {
                if (connected && !leaving && !steppedBack) {
                    List<Integer> mine = read.shardsOf(nodeId);
                    if (!mine.equals(ownership.current())) {
                        LOG.info("epoch {}: {} owns {} shards", read.epoch(), nodeId, mine.size());
                        ownership.replace(mine);
                    }
                    lease.ownershipReadIn(session); // after the replace: never vouches for the shards before it
                }
            }
        } catch (KeeperException.NoNodeException e) {
            // no assignment yet: the master writes the first one
        } catch (Exception e) {
            LOG.warn("reading the assignment failed: {}", e.toString());
        }
    }

    /** On the master: a balanced assignment for the live members, written with the next epoch. */
    private void rebalanceIfMaster() {
        if (!latch.hasLeadership() || !connected) {
            return;
        }
        try {
            List<String> live = new ArrayList<>(client.getChildren().forPath(root + "/nodes"));
            live.removeAll(leavingMembers());
            if (live.isEmpty()) {
                return; // every member is leaving or stepped back: nobody to hand the shards to
            }
            Stat stat = new Stat();
            Assignment current = Assignment.NONE;
            boolean exists = true;
            try {
                current = JSON.readValue(
                        client.getData().storingStatIn(stat).forPath(root + "/assignment"), Assignment.class);
            } catch (KeeperException.NoNodeException e) {
                exists = false;
            }
            Map<String, List<Integer>> next = ShardAssigner.assign(shardCount, live, current.shardsByNode());
            if (exists && next.equals(current.shardsByNode()) && nodeId.equals(current.master())) {
                return;
            }
            Assignment written = new Assignment(current.epoch() + 1, nodeId, next);
            if (exists) {
                client.setData().withVersion(stat.getVersion()).forPath(root + "/assignment", json(written));
            } else {
                client.create().creatingParentContainersIfNeeded().forPath(root + "/assignment", json(written));
            }
            LOG.info("epoch {}: assigned {} shards to {}", written.epoch(), shardCount, next.keySet());
        } catch (KeeperException.BadVersionException | KeeperException.NodeExistsException e) {
            events.execute(this::rebalanceIfMaster); // someone wrote in between: read again
        } catch (Exception e) {
            LOG.warn("rebalancing failed: {}", e.toString());
        }
    }

    /** Members stopping gracefully or stepped back ({@link #stopTakingShards()}, {@link #stepBack}): no shards. */
    private List<String> leavingMembers() throws Exception {
        try {
            return client.getChildren().forPath(root + "/leaving");
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }

    /**
     * Before {@link #join}: how this node answers requests from other nodes to withhold one of its
     * claimed attempts (memory only, quick).
     */
    public void answerWithholdRequestsWith(java.util.function.BiFunction<Long, Integer, AttemptHolders.Answer> holder) {
        this.attemptHolder = holder;
    }

    /**
     * Asks node {@code holder} to withhold attempt {@code attempt} of job {@code jobId}; empty if it
     * did not answer within {@code timeoutMs} (see {@link #isMember} for what that means).
     */
    public Optional<AttemptHolders.Answer> askToWithhold(String holder, long jobId, int attempt, long timeoutMs) {
        return withholdRequests.ask(holder, jobId, attempt, timeoutMs);
    }

    /**
     * Whether the node is a member of the cluster as this node last heard (its session is alive);
     * true until this node has read the members once (it cannot tell yet).
     */
    public boolean isMember(String node) {
        return cache == null
                || !cacheInitialized
                || cache.get(root + "/nodes/" + node).isPresent();
    }

    /** For tests in this package: the Curator client, to expire its session on purpose. */
    CuratorFramework client() {
        return client;
    }

    @Override
    public List<Member> members() {
        List<Member> out = new ArrayList<>();
        if (cache == null) {
            return out;
        }
        cache.stream().filter(d -> d.getPath().startsWith(root + "/nodes/")).forEach(d -> {
            String id = d.getPath().substring(d.getPath().lastIndexOf('/') + 1);
            try {
                out.add(JSON.readValue(d.getData(), Member.class));
            } catch (Exception e) {
                // its znode is what makes it a member: dropping it would make this node end the
                // attempts of a live node as orphans; only its announced figures are unknown
                if (unreadableMembers.add(id)) {
                    LOG.warn("member {} announces itself in a form this node cannot read: {}", id, e.toString());
                }
                out.add(new Member(id, null, null, 0, 0, 0, null));
            }
        });
        out.sort(java.util.Comparator.comparing(Member::id));
        return out;
    }

    @Override
    public Assignment assignment() {
        return assignment;
    }

    @Override
    public String master() {
        try {
            return latch.getLeader().isLeader() ? latch.getLeader().getId() : null;
        } catch (Exception e) {
            return null;
        }
    }

    @Override
    public boolean isConnected() {
        return connected;
    }

    /** From memory: the latch's own view, no ZooKeeper read (unlike {@link #master()}). */
    @Override
    public boolean isMaster() {
        return connected && latch.hasLeadership();
    }

    /** Leaves the cluster: the ephemeral node goes at once, so the master re-assigns at once. */
    @Override
    public void close() {
        closing = true;
        heartbeat.shutdownNow();
        leaseRenewal.shutdownNow();
        try {
            // a session reopened from the heartbeat thread must be done before the client closes
            heartbeat.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            if (member != null) {
                member.close();
            }
            latch.close();
        } catch (Exception e) {
            LOG.debug("closing the leader latch: {}", e.toString());
        }
        if (cache != null) {
            cache.close();
        }
        withholdRequests.close();
        client.close();
        curatorNotifications.shutdown(); // what closing queued still runs
        events.shutdownNow();
    }

    private static byte[] json(Object value) {
        try {
            return JSON.writeValueAsString(value).getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
