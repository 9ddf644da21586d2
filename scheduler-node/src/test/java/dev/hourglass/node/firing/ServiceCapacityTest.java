package dev.hourglass.node.firing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.node.core.timeindex.IndexEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ServiceCapacityTest {
    private final AtomicInteger bound = new AtomicInteger(4);
    private final List<IndexEntry> reoffered = new ArrayList<>();
    private final ServiceCapacity capacity = new ServiceCapacity(key -> bound.get(), reoffered::addAll);

    private static List<IndexEntry> due(int from, int count) {
        List<IndexEntry> out = new ArrayList<>();
        for (int i = from; i < from + count; i++) {
            out.add(new IndexEntry(i, 1_000 + i, "app/svc", 0));
        }
        return out;
    }

    @Test
    void aPausedServicesJobsAreNotHeldInMemoryAndWhatWasParkedIsLetGo() {
        assertThat(capacity.admit(due(0, 10))).hasSize(4);
        assertThat(capacity.parked()).as("full: the rest parked").isEqualTo(6);
        bound.set(0); // paused
        capacity.reconsider();
        assertThat(capacity.parked())
                .as("parked jobs wait in the database instead")
                .isZero();
        assertThat(capacity.admit(due(10, 1_000))).isEmpty();
        assertThat(capacity.parked()).as("a long pause holds nothing in memory").isZero();
        assertThat(capacity.saturated(10)).isEmpty();
        for (int i = 0; i < 4; i++) {
            capacity.release("app/svc"); // the four under way end
        }
        assertThat(reoffered).isEmpty();
        bound.set(4); // resumed
        assertThat(capacity.admit(due(2_000, 3))).hasSize(3);
    }
}
