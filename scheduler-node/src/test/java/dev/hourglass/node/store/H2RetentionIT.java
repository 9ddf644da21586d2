package dev.hourglass.node.store;

import dev.hourglass.node.store.h2.StandaloneH2;
import dev.hourglass.node.store.mybatis.Database;
import dev.hourglass.node.testing.RunsAlongside;
import dev.hourglass.node.testing.TestNodes;

/** Retention's storage on H2 in MySQL mode, with the URL the standalone node uses. */
@RunsAlongside
class H2RetentionIT extends RetentionContract {
    @Override
    protected Database open() {
        String url = StandaloneH2.url(TestNodes.tempDir().resolve("retention"));
        return new Database(url, "sa", "", 4);
    }
}
