package dev.hourglass.node.store;

import dev.hourglass.node.store.mybatis.Database;
import dev.hourglass.node.testing.RunsAlongside;
import dev.hourglass.node.testing.TestNodes;

/** Retention's storage on H2 in MySQL mode, with the URL the standalone node uses. */
@RunsAlongside
class H2RetentionIT extends RetentionContract {
    @Override
    protected Database open() {
        String url = "jdbc:h2:file:" + TestNodes.tempDir().resolve("retention")
                + ";MODE=MySQL;DATABASE_TO_LOWER=TRUE;CASE_INSENSITIVE_IDENTIFIERS=TRUE;DEFAULT_NULL_ORDERING=HIGH";
        return new Database(url, "sa", "", 4);
    }
}
