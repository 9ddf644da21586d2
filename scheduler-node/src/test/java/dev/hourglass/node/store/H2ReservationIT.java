package dev.hourglass.node.store;

import dev.hourglass.node.store.h2.StandaloneH2;
import dev.hourglass.node.store.mybatis.Database;
import dev.hourglass.node.testing.RunsAlongside;
import dev.hourglass.node.testing.TestNodes;

/**
 * Reservations on H2 in MySQL mode, with the URL the standalone node uses. H2 is the demo database
 * only: its locking differs from InnoDB, so the race of consumers is not claimed here.
 */
@RunsAlongside
class H2ReservationIT extends ReservationContract {
    @Override
    protected Database open() {
        String url = StandaloneH2.url(TestNodes.tempDir().resolve("reservations"));
        return new Database(url, "sa", "", 8);
    }

    @Override
    protected boolean testsConcurrency() {
        return false;
    }
}
