package dev.hourglass.node.store.mybatis;

import dev.hourglass.node.core.job.Backoff;
import dev.hourglass.node.core.port.ServiceRepository;
import dev.hourglass.node.core.service.AckMode;
import dev.hourglass.node.core.service.AlertPolicy;
import dev.hourglass.node.core.service.Protocol;
import dev.hourglass.node.core.service.ServiceDefinition;
import java.util.List;
import java.util.Optional;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;

/** {@link ServiceRepository} on MyBatis. */
public final class MyBatisServiceRepository implements ServiceRepository {
    private final SqlSessionFactory sessions;

    public MyBatisServiceRepository(SqlSessionFactory sessions) {
        this.sessions = sessions;
    }

    @Override
    public ServiceDefinition put(ServiceDefinition service) {
        try (SqlSession s = sessions.openSession(false)) {
            ServiceMapper m = s.getMapper(ServiceMapper.class);
            ServiceRow existing = m.find(service.app(), service.name());
            ServiceRow row = toRow(service);
            if (existing == null) {
                m.insert(row);
            } else {
                row.createdAt = existing.createdAt;
                m.update(row);
            }
            s.commit();
            return toDefinition(row);
        }
    }

    @Override
    public Optional<ServiceDefinition> find(String app, String name) {
        try (SqlSession s = sessions.openSession(true)) {
            return Optional.ofNullable(s.getMapper(ServiceMapper.class).find(app, name))
                    .map(MyBatisServiceRepository::toDefinition);
        }
    }

    @Override
    public List<ServiceDefinition> list(String app) {
        try (SqlSession s = sessions.openSession(true)) {
            return s.getMapper(ServiceMapper.class).list(app).stream()
                    .map(MyBatisServiceRepository::toDefinition)
                    .toList();
        }
    }

    @Override
    public boolean deleteIfIdle(String app, String name) {
        try (SqlSession s = sessions.openSession(false)) {
            ServiceMapper m = s.getMapper(ServiceMapper.class);
            if (m.countLiveJobs(app, name) > 0) {
                return false;
            }
            m.delete(app, name);
            s.commit();
            return true;
        }
    }

    private static ServiceRow toRow(ServiceDefinition d) {
        ServiceRow r = new ServiceRow();
        r.app = d.app();
        r.name = d.name();
        r.protocol = d.protocol().name();
        r.topic = d.topic();
        r.url = d.url();
        r.dubboGroup = d.dubboGroup();
        r.dubboVersion = d.dubboVersion();
        r.maxAttempts = d.maxAttempts();
        r.timeoutMs = d.timeoutMs();
        r.backoffInitialMs = d.backoff().initialMs();
        r.backoffMultiplier = d.backoff().multiplier();
        r.backoffMaxMs = d.backoff().maxMs();
        r.ackMode = d.ackMode().name();
        r.maxInFlight = d.maxInFlight();
        r.signingSecret = d.signingSecret();
        if (d.alert() != null) {
            r.alertFailures = d.alert().failures();
            r.alertWindowS = d.alert().windowSeconds();
            r.alertWebhook = d.alert().webhook();
            r.alertConsecutive = d.alert().consecutiveFailures();
            r.alertOverdueS = d.alert().overdueSeconds();
        }
        r.createdAt = d.createdAt();
        r.updatedAt = d.updatedAt();
        return r;
    }

    private static ServiceDefinition toDefinition(ServiceRow r) {
        AlertPolicy alert = r.alertFailures == null
                ? null
                : new AlertPolicy(
                        r.alertFailures,
                        r.alertWindowS == null ? 300 : r.alertWindowS,
                        r.alertConsecutive,
                        r.alertOverdueS,
                        r.alertWebhook);
        return new ServiceDefinition(
                r.app,
                r.name,
                Protocol.valueOf(r.protocol),
                r.topic,
                r.url,
                r.dubboGroup,
                r.dubboVersion,
                r.maxAttempts,
                r.timeoutMs,
                new Backoff(r.backoffInitialMs, r.backoffMultiplier, r.backoffMaxMs),
                AckMode.valueOf(r.ackMode),
                r.maxInFlight,
                r.signingSecret,
                alert,
                r.createdAt,
                r.updatedAt);
    }
}
