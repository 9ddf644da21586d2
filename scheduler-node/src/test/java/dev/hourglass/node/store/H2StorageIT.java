package dev.hourglass.node.store;

import dev.hourglass.node.store.h2.StandaloneH2;
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
        // the node's own settings: with H2's defaults (a write delay of 500 ms, 45 s of chunk
        // retention) repeated 18 MB transactions corrupted the file ("File corrupted in chunk",
        // "Reading from file ... failed") in 11 of 12 rounds; with these, 0 of 18
        return new Database(StandaloneH2.url(TestNodes.tempDir().resolve("contract")), "sa", "", 8);
    }

    @Override
    protected boolean testsConcurrency() {
        return false;
    }
}
