package dev.hourglass.node.alert;

import dev.hourglass.node.background.Lifecycle;
import dev.hourglass.node.background.Periodic;
import dev.hourglass.node.core.alert.Alert;
import dev.hourglass.node.core.alert.AlertKind;
import dev.hourglass.node.core.alert.AlertRules;
import dev.hourglass.node.core.port.AlertStore;
import dev.hourglass.node.core.port.Coordination;
import dev.hourglass.node.core.port.ServiceRepository;
import dev.hourglass.node.core.port.WebhookSender;
import dev.hourglass.node.core.service.AlertPolicy;
import dev.hourglass.node.core.service.ServiceDefinition;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Evaluates every service's alert policy and sends the webhook notifications alerts are owed
 * (docs/alerts.md).
 *
 * <p>Who: the master only, so each condition is judged once cluster-wide; the store's unique key
 * on open alerts keeps it one alert even if two nodes judge at once while the master changes.
 * Every node reads the FIRING alerts for its metrics. What: measures from the store (failed jobs
 * in the backlog, the service's latest attempts, the oldest waiting jobs), so a condition seen by
 * one master is seen by the next. Notifications are an outbox in the alert rows: one is owed while
 * the state the webhook last accepted differs from the alert's; a failed one is retried with
 * backoff for as long as it is owed. They are sent on this thread, never on a firing thread.
 */
public final class AlertMonitor implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AlertMonitor.class);
    /**
     * Waiting jobs read per shard to find overdue services: bounded, so a huge backlog costs one
     * page. A service whose overdue jobs are all younger than this many older ones of other
     * services in every shard is seen only once those are gone (the older ones alert meanwhile).
     */
    static final int OVERDUE_SCAN_PER_SHARD = 200;
    /** Time one run may spend sending notifications. */
    static final long SENDING_PER_RUN_MS = 30_000;

    private final AlertStore store;
    private final ServiceRepository services;
    private final Coordination cluster;
    private final Clock clock;
    private final WebhookSender sender;
    private final Consumer<List<Alert>> firingListener;
    private final Supplier<Map<String, String>> appWebhooks;
    private final long everyMs;
    private final long webhookTimeoutMs;
    private final int shards;
    private Periodic thread;
    private final Lifecycle lifecycle = new Lifecycle("alert monitor");

    /**
     * @param firingListener told the FIRING alerts after every run, on every node (metrics)
     * @param appWebhooks each app's default webhook, for policies that name none (admin-set)
     * @param shards the cluster's shard count: overdue jobs are looked for shard by shard
     */
    public AlertMonitor(
            AlertStore store,
            ServiceRepository services,
            Coordination cluster,
            Clock clock,
            WebhookSender sender,
            Consumer<List<Alert>> firingListener,
            Supplier<Map<String, String>> appWebhooks,
            int shards,
            long everyMs,
            long webhookTimeoutMs) {
        this.store = store;
        this.services = services;
        this.cluster = cluster;
        this.clock = clock;
        this.sender = sender;
        this.firingListener = firingListener;
        this.appWebhooks = appWebhooks;
        this.shards = shards;
        this.everyMs = everyMs;
        this.webhookTimeoutMs = webhookTimeoutMs;
    }

    public synchronized void start() {
        lifecycle.start();
        thread = Periodic.every("hourglass-alerts", everyMs, this::runOnce);
    }

    /** One run: judge and notify (the master), then tell the listener what is firing (every node). */
    public void runOnce() {
        if (cluster.isMaster()) {
            evaluate();
            notifyOwed();
        }
        firingListener.accept(store.firing());
    }

    /** Opens alerts whose condition holds and resolves those whose condition cleared. */
    void evaluate() {
        long now = clock.millis();
        List<ServiceDefinition> watched =
                services.list(null).stream().filter(s -> s.alert() != null).toList();
        AlertStore.Overdue overdue = new AlertStore.Overdue(Map.of(), true);
        long shortestOverdueMs = watched.stream()
                .map(s -> s.alert().overdueSeconds())
                .filter(o -> o != null)
                .mapToLong(o -> o * 1_000L)
                .min()
                .orElse(-1);
        if (shortestOverdueMs >= 0) {
            overdue = store.oldestOverdue(shards, now - shortestOverdueMs, OVERDUE_SCAN_PER_SHARD);
        }
        Map<String, String> defaultWebhooks = appWebhooks.get();
        Map<String, Alert> open = new HashMap<>();
        store.firing().forEach(a -> open.put(a.serviceKey() + "/" + a.kind(), a));
        for (ServiceDefinition s : watched) {
            AlertPolicy policy = s.alert();
            String key = s.key();
            String webhook = policy.webhook() != null ? policy.webhook() : defaultWebhooks.get(s.app());
            Long oldest = overdue.oldest().get(key);
            // not seen in a scan that stopped early: it may be overdue all the same, so its
            // OVERDUE condition is left as it is this time (neither opened nor resolved)
            boolean overdueUnknown = oldest == null && !overdue.complete();
            AlertRules.Observation seen = new AlertRules.Observation(
                    store.failedJobsSince(s.app(), s.name(), now - policy.windowSeconds() * 1_000L),
                    policy.consecutiveFailures() == null
                            ? 0
                            : store.failedStreak(s.app(), s.name(), policy.consecutiveFailures()),
                    // a pause keeps jobs waiting on purpose: not overdue while paused, and counted from
                    // the resume after one
                    oldest == null ? 0 : s.pause().overdueMs(oldest, now));
            for (AlertRules.Check check : AlertRules.check(policy, seen)) {
                Alert current = open.remove(key + "/" + check.kind());
                if (check.kind() == AlertKind.OVERDUE && overdueUnknown) {
                    continue;
                }
                if (check.holds() && current == null) {
                    Alert opened = new Alert(
                            0,
                            s.app(),
                            s.name(),
                            check.kind(),
                            Alert.State.FIRING,
                            check.threshold(),
                            check.observed(),
                            check.message(),
                            now,
                            null,
                            null,
                            null,
                            webhook,
                            null,
                            0,
                            webhook == null ? null : now,
                            null);
                    if (store.open(opened)) {
                        LOG.warn("alert FIRING: {} {}: {}", key, check.kind(), check.message());
                    }
                } else if (!check.holds() && current != null) {
                    store.resolve(current.id(), now);
                    LOG.info("alert RESOLVED: {} {}: {}", key, check.kind(), check.message());
                }
            }
        }
        // what is left open has no condition any more: its service, or that part of its policy, is gone
        for (Alert orphan : open.values()) {
            store.resolve(orphan.id(), now);
            LOG.info("alert RESOLVED: {} {}: no longer watched", orphan.serviceKey(), orphan.kind());
        }
    }

    /**
     * Sends what the webhooks are owed, each alert's current state; failures are retried later. A
     * run stops sending after {@link #SENDING_PER_RUN_MS}: slow webhooks delay the next judgement
     * by at most that, and what is left is sent by the next run.
     */
    void notifyOwed() {
        long started = clock.millis();
        for (Alert a : store.owedNotifications(started, 100)) {
            long now = clock.millis();
            if (!cluster.isMaster() || now - started > SENDING_PER_RUN_MS) {
                return;
            }
            // the lease covers this one send, from when it is taken
            if (!store.takeNotification(a.id(), a.nextNotifyAt(), now + webhookTimeoutMs + 5_000)) {
                continue; // another node took it
            }
            String secret = services.find(a.app(), a.service())
                    .map(ServiceDefinition::signingSecret)
                    .orElse(null);
            String failure = secret == null
                    ? "the service is gone: nothing to sign the notification with"
                    : sender.send(a.webhook(), secret, a);
            long after = clock.millis();
            if (failure == null) {
                store.notified(a.id(), a.state(), after);
            } else {
                int attempts = a.notifyAttempts() + 1;
                store.notifyFailed(
                        a.id(), a.state(), attempts, after + AlertRules.retryDelayMs(attempts), failure, after);
                LOG.warn(
                        "alert {} ({} {}): webhook failed (attempt {}): {}",
                        a.id(),
                        a.serviceKey(),
                        a.kind(),
                        attempts,
                        failure);
            }
        }
    }

    @Override
    public synchronized void close() {
        lifecycle.close();
        if (thread != null) {
            thread.close();
            thread = null;
        }
    }
}
