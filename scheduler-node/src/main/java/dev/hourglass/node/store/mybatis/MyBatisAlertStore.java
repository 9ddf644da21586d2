package dev.hourglass.node.store.mybatis;

import dev.hourglass.node.core.alert.Alert;
import dev.hourglass.node.core.alert.AlertKind;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.port.AlertStore;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;

/** {@link AlertStore} on MyBatis: the {@code hg_alert} table and index-bounded reads of the job tables. */
public final class MyBatisAlertStore implements AlertStore {
    private final SqlSessionFactory sessions;

    public MyBatisAlertStore(SqlSessionFactory sessions) {
        this.sessions = sessions;
    }

    @Override
    public long failedJobsSince(String app, String service, long since) {
        try (SqlSession s = sessions.openSession(true)) {
            return s.getMapper(AlertMapper.class).failedJobsSince(app, service, since);
        }
    }

    @Override
    public long failedStreak(String app, String service, int upTo) {
        try (SqlSession s = sessions.openSession(true)) {
            long streak = 0;
            for (String outcome : s.getMapper(AlertMapper.class).latestOutcomes(app, service, upTo)) {
                if ("SUCCESS".equals(outcome)) {
                    break;
                }
                streak++;
            }
            return streak;
        }
    }

    @Override
    public Overdue oldestOverdue(int shards, long dueBefore, int perShard) {
        try (SqlSession s = sessions.openSession(true)) {
            Map<String, Long> oldest = new HashMap<>();
            // per shard and part (pushed jobs, PULL jobs): a part that read its limit may have left some out
            Map<String, Integer> perPartRead = new HashMap<>();
            for (OverdueRow r : s.getMapper(AlertMapper.class)
                    .oldestOverdue(IntStream.range(0, shards).boxed().toList(), dueBefore, perShard)) {
                oldest.merge(Job.serviceKey(r.app, r.service), r.dueAt, Math::min);
                perPartRead.merge(r.shard + (r.pulled ? "/pulled" : "/pushed"), 1, Integer::sum);
            }
            boolean complete = perPartRead.values().stream().allMatch(n -> n < perShard);
            return new Overdue(oldest, complete);
        }
    }

    @Override
    public List<Alert> firing() {
        try (SqlSession s = sessions.openSession(true)) {
            return s.getMapper(AlertMapper.class).firing().stream()
                    .map(MyBatisAlertStore::toAlert)
                    .toList();
        }
    }

    @Override
    public boolean open(Alert a) {
        AlertRow r = new AlertRow();
        r.app = a.app();
        r.service = a.service();
        r.kind = a.kind().name();
        r.openKey = a.app() + "/" + a.service() + "/" + a.kind();
        r.threshold = a.threshold();
        r.observed = a.observed();
        r.message = clip(a.message());
        r.firedAt = a.firedAt();
        r.webhook = a.webhook();
        r.nextNotifyAt = a.nextNotifyAt();
        try (SqlSession s = sessions.openSession(true)) {
            s.getMapper(AlertMapper.class).open(r);
            return true;
        } catch (RuntimeException e) {
            if (SqlFailures.isDuplicateKey(e)) {
                return false; // open already: judged by another node during a change of master
            }
            throw e;
        }
    }

    @Override
    public void resolve(long id, long now) {
        try (SqlSession s = sessions.openSession(true)) {
            s.getMapper(AlertMapper.class).resolve(id, now);
        }
    }

    @Override
    public List<Alert> owedNotifications(long now, int limit) {
        try (SqlSession s = sessions.openSession(true)) {
            return s.getMapper(AlertMapper.class).owedNotifications(now, limit).stream()
                    .map(MyBatisAlertStore::toAlert)
                    .toList();
        }
    }

    @Override
    public boolean takeNotification(long id, long expected, long until) {
        try (SqlSession s = sessions.openSession(true)) {
            return s.getMapper(AlertMapper.class).takeNotification(id, expected, until) == 1;
        }
    }

    @Override
    public void notified(long id, Alert.State state, long now) {
        try (SqlSession s = sessions.openSession(true)) {
            AlertMapper m = s.getMapper(AlertMapper.class);
            if (m.notified(id, state.name(), now) == 0) {
                m.owedAgain(id, state.name(), now);
            }
        }
    }

    @Override
    public void notifyFailed(long id, Alert.State state, int attempts, long nextAt, String error, long now) {
        try (SqlSession s = sessions.openSession(true)) {
            s.getMapper(AlertMapper.class).notifyFailed(id, state.name(), attempts, nextAt, clip(error), now);
        }
    }

    @Override
    public AlertPage search(AlertQuery q) {
        try (SqlSession s = sessions.openSession(true)) {
            List<Alert> rows = s.getMapper(AlertMapper.class).search(q, q.limit() + 1).stream()
                    .map(MyBatisAlertStore::toAlert)
                    .toList();
            if (rows.size() <= q.limit()) {
                return new AlertPage(rows, null);
            }
            List<Alert> page = rows.subList(0, q.limit());
            return new AlertPage(page, page.get(page.size() - 1).id());
        }
    }

    @Override
    public Optional<Alert> acknowledge(long id, String app, String by, long now) {
        try (SqlSession s = sessions.openSession(true)) {
            AlertMapper m = s.getMapper(AlertMapper.class);
            if (m.acknowledge(id, app, by, now) == 0) {
                return Optional.empty();
            }
            return Optional.of(toAlert(m.find(id)));
        }
    }

    /** hg_alert's text columns are 512 characters wide. */
    private static String clip(String text) {
        return text == null || text.length() <= 500 ? text : text.substring(0, 500) + "...";
    }

    private static Alert toAlert(AlertRow r) {
        return new Alert(
                r.id,
                r.app,
                r.service,
                AlertKind.valueOf(r.kind),
                Alert.State.valueOf(r.state),
                r.threshold,
                r.observed,
                r.message,
                r.firedAt,
                r.resolvedAt,
                r.ackedBy,
                r.ackedAt,
                r.webhook,
                r.notifiedState == null ? null : Alert.State.valueOf(r.notifiedState),
                r.notifyAttempts,
                r.nextNotifyAt,
                r.lastNotifyError);
    }
}
