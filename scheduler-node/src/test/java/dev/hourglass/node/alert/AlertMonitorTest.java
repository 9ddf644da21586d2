package dev.hourglass.node.alert;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.node.api.AlertJson;
import dev.hourglass.node.core.alert.Alert;
import dev.hourglass.node.core.alert.AlertKind;
import dev.hourglass.node.core.cluster.Assignment;
import dev.hourglass.node.core.cluster.Member;
import dev.hourglass.node.core.job.Backoff;
import dev.hourglass.node.core.port.AlertStore;
import dev.hourglass.node.core.port.Coordination;
import dev.hourglass.node.core.port.ServiceRepository;
import dev.hourglass.node.core.port.WebhookSender;
import dev.hourglass.node.core.service.AckMode;
import dev.hourglass.node.core.service.AlertPolicy;
import dev.hourglass.node.core.service.Protocol;
import dev.hourglass.node.core.service.ServiceDefinition;
import dev.hourglass.node.testing.ServicesWithoutFlowControl;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The alert lifecycle and the notification outbox, against an in-memory store and a manual clock. */
class AlertMonitorTest {
    static final long T0 = 1_800_000_000_000L;

    long now = T0;
    final Clock clock = new Clock() {
        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(now);
        }
    };
    final MemoryStore store = new MemoryStore();
    final List<ServiceDefinition> services = new ArrayList<>();
    String master = "n1";
    final List<String> sent = new ArrayList<>();
    String webhookFailure = null;
    List<Alert> exported = List.of();

    AlertMonitor monitor() {
        ServiceRepository repo = new ServicesWithoutFlowControl() {
            @Override
            public ServiceDefinition put(ServiceDefinition s) {
                throw new UnsupportedOperationException();
            }

            @Override
            public Optional<ServiceDefinition> find(String app, String name) {
                return services.stream()
                        .filter(s -> s.app().equals(app) && s.name().equals(name))
                        .findFirst();
            }

            @Override
            public List<ServiceDefinition> list(String app) {
                return List.copyOf(services);
            }

            @Override
            public boolean deleteIfIdle(String app, String name) {
                throw new UnsupportedOperationException();
            }
        };
        Coordination cluster = new Coordination() {
            @Override
            public List<Member> members() {
                return List.of();
            }

            @Override
            public Assignment assignment() {
                return null;
            }

            @Override
            public String master() {
                return master;
            }

            @Override
            public boolean isConnected() {
                return true;
            }

            @Override
            public boolean isMaster() {
                return "n1".equals(master);
            }
        };
        WebhookSender sender = (url, secret, alert) -> {
            sent.add(new String(AlertJson.webhookBody(alert), java.nio.charset.StandardCharsets.UTF_8));
            return webhookFailure;
        };
        return new AlertMonitor(store, repo, cluster, clock, sender, a -> exported = a, Map::of, 4, 1_000, 1_000);
    }

    static ServiceDefinition service(AlertPolicy policy) {
        return new ServiceDefinition(
                "shop",
                "close",
                Protocol.HTTP,
                null,
                "http://127.0.0.1/cb",
                null,
                null,
                3,
                1_000,
                new Backoff(1_000, 2.0, 60_000),
                AckMode.AUTO,
                10,
                "s".repeat(32),
                policy,
                T0,
                T0);
    }

    @Test
    void anOverdueJobFiresOnceAndResolvesWhenItIsGone() {
        services.add(service(new AlertPolicy(10, 300, null, 60, "http://127.0.0.1/hook")));
        AlertMonitor m = monitor();
        store.oldestDue.put("shop/close", T0 - 61_000);
        m.runOnce();
        m.runOnce();
        assertThat(store.alerts).hasSize(1);
        Alert a = store.alerts.get(0);
        assertThat(a.kind()).isEqualTo(AlertKind.OVERDUE);
        assertThat(a.state()).isEqualTo(Alert.State.FIRING);
        assertThat(a.observed()).isEqualTo(61_000);
        assertThat(sent).hasSize(1).allMatch(b -> b.contains("\"state\":\"FIRING\""));
        assertThat(exported).hasSize(1);

        store.oldestDue.clear();
        now += 1_000;
        m.runOnce();
        m.runOnce();
        assertThat(store.alerts.get(0).state()).isEqualTo(Alert.State.RESOLVED);
        assertThat(sent).hasSize(2);
        assertThat(sent.get(1)).contains("\"state\":\"RESOLVED\"");
        assertThat(exported).isEmpty();
    }

    @Test
    void aPausedServiceIsNeverOverdueAndAfterTheResumeItsWaitCountsFromTheResume() {
        ServiceDefinition base = service(new AlertPolicy(10, 300, null, 60, null));
        ServiceDefinition paused =
                withPause(base, new dev.hourglass.node.core.service.Pause(T0 - 120_000, "admin", null));
        services.add(paused);
        AlertMonitor m = monitor();
        store.oldestDue.put("shop/close", T0 - 600_000); // due ten minutes ago, paused two
        m.runOnce();
        assertThat(store.alerts).as("paused: waiting on purpose").isEmpty();

        services.clear();
        services.add(withPause(base, new dev.hourglass.node.core.service.Pause(null, null, T0 - 30_000)));
        m.runOnce();
        assertThat(store.alerts).as("resumed 30 s ago: not yet overdue (60 s)").isEmpty();

        services.clear();
        services.add(withPause(base, new dev.hourglass.node.core.service.Pause(null, null, T0 - 61_000)));
        m.runOnce();
        assertThat(store.alerts).hasSize(1);
        assertThat(store.alerts.get(0).observed()).as("counted from the resume").isEqualTo(61_000);
    }

    private static ServiceDefinition withPause(ServiceDefinition s, dev.hourglass.node.core.service.Pause pause) {
        return new ServiceDefinition(
                s.app(),
                s.name(),
                s.protocol(),
                s.topic(),
                s.url(),
                s.dubboGroup(),
                s.dubboVersion(),
                s.maxAttempts(),
                s.timeoutMs(),
                s.backoff(),
                s.ackMode(),
                s.maxInFlight(),
                s.signingSecret(),
                s.alert(),
                s.createdAt(),
                s.updatedAt(),
                s.flow(),
                pause);
    }

    @Test
    void anOverdueAlertStaysFiringWhileTheScanStoppedBeforeReachingItsService() {
        services.add(service(new AlertPolicy(10, 300, null, 60, null)));
        AlertMonitor m = monitor();
        store.oldestDue.put("shop/close", T0 - 61_000);
        m.runOnce();
        assertThat(store.firing()).hasSize(1);
        // older jobs of other services fill every shard's page: this service is not seen
        store.oldestDue.clear();
        store.overdueScanComplete = false;
        m.runOnce();
        assertThat(store.firing()).as("unknown is not resolved").hasSize(1);
        store.overdueScanComplete = true;
        m.runOnce();
        assertThat(store.firing()).as("a complete scan without it resolves it").isEmpty();
    }

    @Test
    void aNotificationOfAStateThatChangedDuringTheSendIsFollowedByTheCurrentOne() {
        services.add(service(new AlertPolicy(1, 300, "http://127.0.0.1/hook")));
        store.failed = 5;
        AlertMonitor m = monitor();
        m.evaluate();
        Alert firing = store.alerts.get(0);
        // the FIRING send is under way when the alert resolves and the RESOLVED one is recorded
        store.resolve(firing.id(), now);
        store.notified(firing.id(), Alert.State.RESOLVED, now);
        store.notified(firing.id(), Alert.State.FIRING, now); // the slow FIRING send ends last
        assertThat(store.owedNotifications(now, 10))
                .as("RESOLVED is owed again, so it is the last the webhook hears")
                .hasSize(1);
    }

    @Test
    void onlyTheMasterJudgesAndNotifies() {
        services.add(service(new AlertPolicy(1, 300, "http://127.0.0.1/hook")));
        store.failed = 5;
        master = "n2";
        monitor().runOnce();
        assertThat(store.alerts).isEmpty();
        assertThat(sent).isEmpty();
    }

    @Test
    void aFailedNotificationIsRetriedWithBackoffUntilTheWebhookTakesIt() {
        services.add(service(new AlertPolicy(1, 300, "http://127.0.0.1/hook")));
        store.failed = 5;
        webhookFailure = "webhook answered HTTP 503";
        AlertMonitor m = monitor();
        m.runOnce();
        Alert a = store.alerts.get(0);
        assertThat(a.notifyAttempts()).isEqualTo(1);
        assertThat(a.nextNotifyAt()).isEqualTo(T0 + 5_000);
        assertThat(a.lastNotifyError()).isEqualTo("webhook answered HTTP 503");
        now += 4_000;
        m.runOnce();
        assertThat(sent).as("not before its next try").hasSize(1);
        now += 1_000;
        webhookFailure = null;
        m.runOnce();
        assertThat(sent).hasSize(2);
        assertThat(store.alerts.get(0).notifiedState()).isEqualTo(Alert.State.FIRING);
        now += 60_000;
        m.runOnce();
        assertThat(sent).as("nothing more while it stays firing").hasSize(2);
    }

    @Test
    void anAlertWhosePolicyWasRemovedIsResolved() {
        services.add(service(new AlertPolicy(1, 300, 3, null, null)));
        store.failed = 5;
        store.streak = 3;
        AlertMonitor m = monitor();
        m.runOnce();
        assertThat(store.alerts)
                .extracting(Alert::kind)
                .containsExactlyInAnyOrder(AlertKind.FAILED_JOBS, AlertKind.CONSECUTIVE_FAILURES);
        services.set(0, service(new AlertPolicy(1, 300, null, null, null)));
        m.runOnce();
        assertThat(store.alerts)
                .filteredOn(x -> x.kind() == AlertKind.CONSECUTIVE_FAILURES)
                .extracting(Alert::state)
                .containsExactly(Alert.State.RESOLVED);
        assertThat(store.alerts)
                .filteredOn(x -> x.kind() == AlertKind.FAILED_JOBS)
                .extracting(Alert::state)
                .containsExactly(Alert.State.FIRING);
    }

    /** Alerts in a list; measures set by the test. */
    static final class MemoryStore implements AlertStore {
        final List<Alert> alerts = new ArrayList<>();
        final Map<String, Long> oldestDue = new HashMap<>();
        long failed;
        long streak;
        boolean overdueScanComplete = true;

        @Override
        public long failedJobsSince(String app, String service, long since) {
            return failed;
        }

        @Override
        public long failedStreak(String app, String service, int upTo) {
            return Math.min(streak, upTo);
        }

        @Override
        public Overdue oldestOverdue(int shards, long dueBefore, int perShard) {
            Map<String, Long> out = new HashMap<>();
            oldestDue.forEach((k, v) -> {
                if (v < dueBefore) {
                    out.put(k, v);
                }
            });
            return new Overdue(out, overdueScanComplete);
        }

        @Override
        public List<Alert> firing() {
            return alerts.stream().filter(a -> a.state() == Alert.State.FIRING).toList();
        }

        @Override
        public boolean open(Alert a) {
            if (firing().stream().anyMatch(f -> f.serviceKey().equals(a.serviceKey()) && f.kind() == a.kind())) {
                return false;
            }
            alerts.add(with(
                    a, alerts.size() + 1, a.state(), a.resolvedAt(), a.notifiedState(), 0, a.nextNotifyAt(), null));
            return true;
        }

        private int index(long id) {
            return (int) id - 1;
        }

        @Override
        public void resolve(long id, long now) {
            Alert a = alerts.get(index(id));
            alerts.set(
                    index(id),
                    with(
                            a,
                            id,
                            Alert.State.RESOLVED,
                            now,
                            a.notifiedState(),
                            0,
                            a.webhook() == null ? null : now,
                            null));
        }

        @Override
        public List<Alert> owedNotifications(long now, int limit) {
            return alerts.stream()
                    .filter(a -> a.webhook() != null
                            && a.nextNotifyAt() != null
                            && a.nextNotifyAt() <= now
                            && a.notifiedState() != a.state())
                    .toList();
        }

        @Override
        public boolean takeNotification(long id, long expected, long until) {
            Alert a = alerts.get(index(id));
            if (a.nextNotifyAt() == null || a.nextNotifyAt() != expected) {
                return false;
            }
            alerts.set(
                    index(id),
                    with(
                            a,
                            id,
                            a.state(),
                            a.resolvedAt(),
                            a.notifiedState(),
                            a.notifyAttempts(),
                            until,
                            a.lastNotifyError()));
            return true;
        }

        @Override
        public void notified(long id, Alert.State state, long now) {
            Alert a = alerts.get(index(id));
            alerts.set(
                    index(id),
                    a.state() == state
                            ? with(a, id, a.state(), a.resolvedAt(), state, 0, null, null)
                            : with(a, id, a.state(), a.resolvedAt(), null, 0, now, null));
        }

        @Override
        public void notifyFailed(long id, Alert.State state, int attempts, long nextAt, String error, long now) {
            Alert a = alerts.get(index(id));
            if (a.state() == state) {
                alerts.set(
                        index(id), with(a, id, a.state(), a.resolvedAt(), a.notifiedState(), attempts, nextAt, error));
            }
        }

        @Override
        public AlertPage search(AlertQuery query) {
            return new AlertPage(List.copyOf(alerts), null);
        }

        @Override
        public Optional<Alert> acknowledge(long id, String app, String by, long now) {
            return Optional.empty();
        }

        private static Alert with(
                Alert a,
                long id,
                Alert.State state,
                Long resolvedAt,
                Alert.State notified,
                int attempts,
                Long nextAt,
                String error) {
            return new Alert(
                    id,
                    a.app(),
                    a.service(),
                    a.kind(),
                    state,
                    a.threshold(),
                    a.observed(),
                    a.message(),
                    a.firedAt(),
                    resolvedAt,
                    a.ackedBy(),
                    a.ackedAt(),
                    a.webhook(),
                    notified,
                    attempts,
                    nextAt,
                    error);
        }
    }
}
