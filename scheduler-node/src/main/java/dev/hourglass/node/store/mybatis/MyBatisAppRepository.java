package dev.hourglass.node.store.mybatis;

import dev.hourglass.node.tenant.AppRepository;
import java.util.List;
import java.util.Optional;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;

/** {@link AppRepository} on MyBatis. */
public final class MyBatisAppRepository implements AppRepository {
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
}
