package dev.hourglass.node.store;

import dev.hourglass.node.store.mybatis.Database;
import dev.hourglass.node.testing.EmbeddedMariaDb;
import dev.hourglass.node.testing.RunsAlongside;

/** Reservations on embedded MariaDB, where InnoDB's locks are the production ones. */
@RunsAlongside
class MariaDbReservationIT extends ReservationContract {
    @Override
    protected Database open() {
        return new Database(EmbeddedMariaDb.newDatabase(), "root", "", 12);
    }
}
