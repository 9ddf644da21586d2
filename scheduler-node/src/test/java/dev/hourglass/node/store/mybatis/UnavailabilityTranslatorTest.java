package dev.hourglass.node.store.mybatis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.node.core.port.StoreContendedException;
import dev.hourglass.node.core.port.StoreUnavailableException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTimeoutException;
import org.apache.ibatis.exceptions.PersistenceException;
import org.junit.jupiter.api.Test;

/** How a JDBC failure is typed: contended (the database answered), unreachable, or neither. */
class UnavailabilityTranslatorTest {
    @Test
    void aStatementTimeoutALockWaitTimeoutAndADeadlockAreContended() {
        assertThat(UnavailabilityTranslator.translate(
                        new SQLTimeoutException("max_statement_time exceeded", "70100", 1969)))
                .isInstanceOf(StoreContendedException.class);
        assertThat(UnavailabilityTranslator.translate(new SQLException("Lock wait timeout exceeded", "HY000", 1205)))
                .isInstanceOf(StoreContendedException.class);
        assertThat(UnavailabilityTranslator.translate(new SQLException("Deadlock found", "40001", 1213)))
                .isInstanceOf(StoreContendedException.class);
    }

    @Test
    void aLostConnectionIsUnavailableButNotContended() {
        RuntimeException e =
                UnavailabilityTranslator.translate(new SQLNonTransientConnectionException("Socket error", "08000", 0));
        assertThat(e).isInstanceOf(StoreUnavailableException.class).isNotInstanceOf(StoreContendedException.class);
    }

    @Test
    void aKilledConnectionIsNotContendedEvenWhenTheDriverCallsItATimeout() {
        RuntimeException killed =
                UnavailabilityTranslator.translate(new SQLTimeoutException("Connection was killed", "70100", 1927));
        assertThat(killed).isInstanceOf(StoreUnavailableException.class).isNotInstanceOf(StoreContendedException.class);
        SQLException timeoutThenLost = new SQLTimeoutException("timed out", "70100", 1969);
        timeoutThenLost.initCause(new SQLNonTransientConnectionException("Socket error", "08000", 0));
        assertThat(UnavailabilityTranslator.translate(timeoutThenLost)).isNotInstanceOf(StoreContendedException.class);
    }

    @Test
    void aRefusedRowIsNeither() {
        RuntimeException e = UnavailabilityTranslator.translate(new SQLException("Data too long", "22001", 1406));
        assertThat(e).isInstanceOf(PersistenceException.class).isNotInstanceOf(StoreUnavailableException.class);
    }
}
