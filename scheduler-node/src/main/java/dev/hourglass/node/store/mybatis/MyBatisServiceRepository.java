package dev.hourglass.node.store.mybatis;

import dev.hourglass.api.HourglassException;
import dev.hourglass.api.JobState;
import dev.hourglass.node.core.job.Backoff;
import dev.hourglass.node.core.port.ServiceRepository;
import dev.hourglass.node.core.service.AckMode;
import dev.hourglass.node.core.service.AlertPolicy;
import dev.hourglass.node.core.service.FlowControl;
import dev.hourglass.node.core.service.Pause;
import dev.hourglass.node.core.service.Protocol;
import dev.hourglass.node.core.service.ServiceDefinition;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
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
            ServiceRow existing = m.findForUpdate(service.app(), service.name());
            if (existing != null && "PULL".equals(existing.protocol) != (service.protocol() == Protocol.PULL)) {
                // checked by the catalog first (ServiceCommands); here too, under the row's lock,
                // for a catalog that has not heard of the service yet: jobs carry their service's
                // kind (V15's `pulled`), so a change of kind would strand them
                throw HourglassException.conflict("service " + service.name() + " is " + existing.protocol
                        + ": a service cannot change between PULL and a pushed protocol; create a new service");
            }
            ServiceRow row = toRow(service);
            if (existing == null) {
                m.insert(row);
                // a job inserted as the service's earlier self was deleted (its insert read the old
                // kind; deleteIfIdle waits only for jobs already inserted) takes the new kind
                m.flagJobsPulled(service.app(), service.name(), service.protocol() == Protocol.PULL);
            } else {
                row.createdAt = existing.createdAt;
                m.update(row);
            }
            m.bumpVersion();
            s.commit();
            return toDefinition(m.find(service.app(), service.name()));
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
            // the service's row first, then a locking read of its jobs: it waits for a job being
            // inserted (whose insert read the service's protocol for its `pulled` flag, V15), so
            // a service is never deleted, and made again of the other kind, under a job that took
            // the old kind: a pushed service's job flagged PULL would never be read by the engine
            m.delete(app, name);
            if (m.anyLiveJob(app, name) != null) {
                s.rollback();
                return false;
            }
            m.bumpVersion();
            s.commit();
            return true;
        }
    }

    @Override
    public Optional<ServiceDefinition> setPaused(String app, String name, boolean paused, String by, long now) {
        try (SqlSession s = sessions.openSession(false)) {
            ServiceMapper m = s.getMapper(ServiceMapper.class);
            int changed = paused ? m.pause(app, name, by, now) : m.resume(app, name, now);
            if (changed > 0) {
                m.bumpVersion();
            }
            ServiceRow row = m.find(app, name);
            s.commit();
            return Optional.ofNullable(row).map(MyBatisServiceRepository::toDefinition);
        }
    }

    @Override
    public List<String> deadLetterOf(String app, String name) {
        try (SqlSession s = sessions.openSession(true)) {
            return s.getMapper(ServiceMapper.class).deadLetterOf(app, name);
        }
    }

    @Override
    public long version() {
        try (SqlSession s = sessions.openSession(true)) {
            return s.getMapper(ServiceMapper.class).version();
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
        FlowControl flow = d.flow();
        if (flow.rateLimit() != null) {
            r.ratePerSecond = flow.rateLimit().perSecond();
            r.rateBurst = flow.rateLimit().burst();
        }
        if (flow.deadLetter() != null) {
            r.deadLetter = flow.deadLetter().service();
            r.deadLetterOn =
                    flow.deadLetter().on().stream().map(Enum::name).sorted().collect(Collectors.joining(","));
        }
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
                r.updatedAt,
                new FlowControl(
                        r.ratePerSecond == null ? null : new FlowControl.RateLimit(r.ratePerSecond, r.rateBurst),
                        r.deadLetter == null
                                ? null
                                : new FlowControl.DeadLetter(r.deadLetter, endStates(r.deadLetterOn))),
                new Pause(r.pausedAt, r.pausedBy, r.resumedAt));
    }

    private static Set<JobState> endStates(String list) {
        Set<JobState> states = EnumSet.noneOf(JobState.class);
        if (list != null) {
            for (String state : list.split(",")) {
                if (!state.isBlank()) {
                    states.add(JobState.valueOf(state.trim()));
                }
            }
        }
        return states;
    }
}
