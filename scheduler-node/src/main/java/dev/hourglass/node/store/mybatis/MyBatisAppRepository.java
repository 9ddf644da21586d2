package dev.hourglass.node.store.mybatis;

import dev.hourglass.node.core.port.AppRepository;
import dev.hourglass.node.core.service.TargetGrants;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;

/**
 * {@link AppRepository} on MyBatis. Target grants are rows of {@code hg_app_target}, one per
 * pattern, with a kind; the default-group grant is a row of its own kind with an empty pattern.
 */
public final class MyBatisAppRepository implements AppRepository {
    static final String KAFKA_TOPIC = "KAFKA_TOPIC";
    static final String DUBBO_GROUP = "DUBBO_GROUP";
    static final String DUBBO_DEFAULT_GROUP = "DUBBO_DEFAULT_GROUP";

    private final SqlSessionFactory sessions;

    public MyBatisAppRepository(SqlSessionFactory sessions) {
        this.sessions = sessions;
    }

    @Override
    public boolean createApp(String name, long now) {
        try (SqlSession s = sessions.openSession(true)) {
            s.getMapper(AppMapper.class).insertApp(name, now);
            return true;
        } catch (RuntimeException e) {
            if (SqlFailures.isDuplicateKey(e)) {
                return false;
            }
            throw e;
        }
    }

    @Override
    public List<String> listApps() {
        try (SqlSession s = sessions.openSession(true)) {
            return s.getMapper(AppMapper.class).listApps();
        }
    }

    @Override
    public boolean exists(String app) {
        try (SqlSession s = sessions.openSession(true)) {
            return s.getMapper(AppMapper.class).countApp(app) > 0;
        }
    }

    @Override
    public void addToken(String app, String tokenId, String tokenHash, long now) {
        try (SqlSession s = sessions.openSession(true)) {
            s.getMapper(AppMapper.class).insertToken(tokenId, app, tokenHash, now);
        }
    }

    @Override
    public boolean revokeToken(String app, String tokenId, long now) {
        try (SqlSession s = sessions.openSession(true)) {
            return s.getMapper(AppMapper.class).revokeToken(app, tokenId, now) > 0;
        }
    }

    @Override
    public Optional<String> appOfToken(String tokenHash) {
        try (SqlSession s = sessions.openSession(true)) {
            return Optional.ofNullable(s.getMapper(AppMapper.class).appOfToken(tokenHash));
        }
    }

    @Override
    public TargetGrants targets(String app) {
        try (SqlSession s = sessions.openSession(true)) {
            return grants(s.getMapper(AppMapper.class).targetsOf(app));
        }
    }

    @Override
    public void replaceTargets(String app, TargetGrants grants) {
        try (SqlSession s = sessions.openSession(false)) {
            AppMapper m = s.getMapper(AppMapper.class);
            m.deleteTargets(app);
            grants.kafkaTopics().forEach(p -> m.insertTarget(app, KAFKA_TOPIC, p));
            grants.dubboGroups().forEach(p -> m.insertTarget(app, DUBBO_GROUP, p));
            if (grants.dubboDefaultGroup()) {
                m.insertTarget(app, DUBBO_DEFAULT_GROUP, "");
            }
            s.commit();
        }
    }

    @Override
    public Map<String, TargetGrants> allTargets() {
        Map<String, List<TargetRow>> byApp = new HashMap<>();
        try (SqlSession s = sessions.openSession(true)) {
            for (TargetRow r : s.getMapper(AppMapper.class).allTargets()) {
                byApp.computeIfAbsent(r.app, a -> new ArrayList<>()).add(r);
            }
        }
        Map<String, TargetGrants> out = new HashMap<>();
        byApp.forEach((app, rows) -> out.put(app, grants(rows)));
        return out;
    }

    @Override
    public boolean setAlertWebhook(String app, String url) {
        try (SqlSession s = sessions.openSession(true)) {
            return s.getMapper(AppMapper.class).setAlertWebhook(app, url) == 1;
        }
    }

    @Override
    public Optional<String> alertWebhook(String app) {
        try (SqlSession s = sessions.openSession(true)) {
            return Optional.ofNullable(s.getMapper(AppMapper.class).alertWebhook(app));
        }
    }

    @Override
    public Map<String, String> alertWebhooks() {
        Map<String, String> out = new HashMap<>();
        try (SqlSession s = sessions.openSession(true)) {
            s.getMapper(AppMapper.class).alertWebhooks().forEach(r -> out.put(r.app, r.webhook));
        }
        return out;
    }

    /** Rows as they are stored: not re-validated (V4 grandfathered the topics of existing services as they were). */
    private static TargetGrants grants(List<TargetRow> rows) {
        List<String> topics = new ArrayList<>();
        List<String> groups = new ArrayList<>();
        boolean defaultGroup = false;
        for (TargetRow r : rows) {
            switch (r.kind) {
                case KAFKA_TOPIC -> topics.add(r.pattern);
                case DUBBO_GROUP -> groups.add(r.pattern);
                case DUBBO_DEFAULT_GROUP -> defaultGroup = true;
                default -> {} // a kind of a later version: not ours to apply
            }
        }
        topics.sort(null);
        groups.sort(null);
        return new TargetGrants(topics, groups, defaultGroup);
    }
}
