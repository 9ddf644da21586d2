package dev.hourglass.node.store;

import dev.hourglass.node.store.mybatis.Database;
import dev.hourglass.node.testing.RunsAlongside;
import dev.hourglass.node.testing.TestNodes;

/**
 * The storage contract on H2 in MySQL mode, with the URL the standalone node uses. H2 is the demo
 * database only: its locking differs from InnoDB, so the concurrency scenario is not claimed here.
 */
@RunsAlongside
class H2StorageIT extends StorageContract {
    @Override
    protected Database open() {
        String url = "jdbc:h2:file:" + TestNodes.tempDir().resolve("contract")
                + ";MODE=MySQL;DATABASE_TO_LOWER=TRUE;CASE_INSENSITIVE_IDENTIFIERS=TRUE;DEFAULT_NULL_ORDERING=HIGH";
        return new Database(url, "sa", "", 8);
    }

    @Override
    protected boolean limitsStatementSize() {
        return false;
    }

    @Override
    protected boolean testsConcurrency() {
        return false;
    }
}
