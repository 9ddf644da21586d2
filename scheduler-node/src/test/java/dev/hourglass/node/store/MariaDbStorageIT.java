package dev.hourglass.node.store;

import dev.hourglass.node.store.mybatis.Database;
import dev.hourglass.node.testing.EmbeddedMariaDb;
import dev.hourglass.node.testing.RunsAlongside;

/** The storage contract on embedded MariaDB 11.4 (the default test database). */
@RunsAlongside
class MariaDbStorageIT extends StorageContract {
    @Override
    protected Database open() {
        return new Database(EmbeddedMariaDb.newEmptyDatabase(), "root", "", 8);
    }
}
