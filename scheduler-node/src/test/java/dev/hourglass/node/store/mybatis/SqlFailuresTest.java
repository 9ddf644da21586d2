package dev.hourglass.node.store.mybatis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A deadlock is retried, more than three times: eight pull consumers acknowledging batches at once
 * met the same deadlock again on three quick retries, and one answered its consumer UNAVAILABLE.
 */
class SqlFailuresTest {
    private static RuntimeException deadlock() {
        return new RuntimeException(new SQLException("Deadlock found when trying to get lock", "40001", 1213));
    }

    @Test
    void aTransactionThatKeepsMeetingADeadlockIsRetriedUntilItGoesThrough() {
        SqlFailures failures = new SqlFailures();
        AtomicInteger runs = new AtomicInteger();
        String done = failures.retryingDeadlocks(() -> {
            if (runs.incrementAndGet() <= 5) {
                throw deadlock();
            }
            return "written";
        });
        assertThat(done).isEqualTo("written");
        assertThat(runs).hasValue(6);
        assertThat(failures.deadlocks()).isEqualTo(5);
    }

    @Test
    void retriesAreBoundedAndOtherFailuresAreNotRetried() {
        SqlFailures failures = new SqlFailures();
        AtomicInteger runs = new AtomicInteger();
        assertThatThrownBy(() -> failures.retryingDeadlocks(() -> {
                    runs.incrementAndGet();
                    throw deadlock();
                }))
                .hasCauseInstanceOf(SQLException.class);
        assertThat(runs).hasValue(9); // once, then eight retries
        AtomicInteger other = new AtomicInteger();
        assertThatThrownBy(() -> failures.retryingDeadlocks(() -> {
                    other.incrementAndGet();
                    throw new IllegalStateException("not a deadlock");
                }))
                .isInstanceOf(IllegalStateException.class);
        assertThat(other).hasValue(1);
    }
}
