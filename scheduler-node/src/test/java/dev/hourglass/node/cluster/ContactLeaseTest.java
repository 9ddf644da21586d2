package dev.hourglass.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ContactLeaseTest {
    static final long MS = 1_000_000L;
    final ContactLease lease = new ContactLease();

    @Test
    void notHeldBeforeAnyContact() {
        lease.ownershipReadIn(7);
        assertThat(lease.held(0)).isFalse();
    }

    @Test
    void heldForTwoThirdsOfTheSessionTimeoutAfterTheRequestWasSent() {
        lease.ownershipReadIn(7);
        lease.heard(7, 1_000 * MS, 9_000);
        assertThat(lease.held(1_000 * MS)).isTrue();
        assertThat(lease.held(6_999 * MS)).isTrue();
        assertThat(lease.held(7_000 * MS))
                .as("a third of the timeout before the server may expire it")
                .isFalse();
        lease.heard(7, 7_500 * MS, 9_000);
        assertThat(lease.held(8_000 * MS)).as("renewed").isTrue();
    }

    @Test
    void aNewSessionHoldsNothingUntilTheAssignmentIsReadInIt() {
        lease.ownershipReadIn(7);
        lease.heard(7, 0, 9_000);
        lease.heard(8, 100 * MS, 9_000); // the old session expired; the client has a new one
        assertThat(lease.held(200 * MS))
                .as("the shards were read under the lost session")
                .isFalse();
        lease.ownershipReadIn(8);
        assertThat(lease.held(200 * MS)).isTrue();
    }

    @Test
    void monotonicTimesThatWrapAroundStillCompare() {
        lease.ownershipReadIn(7);
        lease.heard(7, Long.MAX_VALUE - 1_000 * MS, 9_000);
        assertThat(lease.held(Long.MAX_VALUE)).isTrue();
        assertThat(lease.held(Long.MAX_VALUE + 4_999 * MS)).isTrue(); // wrapped
        assertThat(lease.held(Long.MAX_VALUE + 5_000 * MS)).isFalse();
    }
}
