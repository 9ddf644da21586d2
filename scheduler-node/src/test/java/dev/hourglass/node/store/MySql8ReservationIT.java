package dev.hourglass.node.store;

import dev.hourglass.node.store.mybatis.Database;
import dev.hourglass.node.testing.RunsAlongside;
import org.junit.jupiter.api.AfterAll;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.mysql.MySQLContainer;

/** Reservations on MySQL 8 in a container; skipped where no Docker engine runs (as here). */
@Testcontainers(disabledWithoutDocker = true)
@RunsAlongside
class MySql8ReservationIT extends ReservationContract {
    private MySQLContainer mysql;

    @Override
    protected Database open() {
        mysql = new MySQLContainer("mysql:8.4");
        mysql.start();
        return new Database(mysql.getJdbcUrl(), mysql.getUsername(), mysql.getPassword(), 8);
    }

    @AfterAll
    void stopContainer() {
        if (mysql != null) {
            mysql.stop();
        }
    }
}
