package dev.hourglass.node.store.mybatis;

import dev.hourglass.node.core.port.AuditLog;
import java.util.List;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;

/** {@link AuditLog} in {@code hg_audit}. */
public final class MyBatisAuditLog implements AuditLog {
    private final SqlSessionFactory sessions;

    public MyBatisAuditLog(SqlSessionFactory sessions) {
        this.sessions = sessions;
    }

    @Override
    public long record(Entry e) {
        AuditRow r = new AuditRow();
        r.at = e.at();
        r.actor = e.actor();
        r.app = e.app();
        r.action = e.action();
        r.filter = e.request(); // built from validated fields: well under the column's 2048
        r.error = e.error();
        r.matched = e.matched();
        r.changed = e.changed();
        r.skipped = e.skipped();
        try (SqlSession s = sessions.openSession(true)) {
            s.getMapper(AuditMapper.class).insert(r);
            return r.id;
        }
    }

    @Override
    public List<Entry> list(String app, int limit, Long beforeId) {
        try (SqlSession s = sessions.openSession(true)) {
            return s.getMapper(AuditMapper.class).list(app, limit, beforeId).stream()
                    .map(r -> new Entry(
                            r.id, r.at, r.actor, r.app, r.action, r.filter, r.matched, r.changed, r.skipped, r.error))
                    .toList();
        }
    }
}
