package dev.hourglass.node.tenant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.hourglass.api.ErrorCode;
import dev.hourglass.api.HourglassException;
import dev.hourglass.node.core.port.AppRepository;
import dev.hourglass.node.core.service.TargetGrants;
import dev.hourglass.node.testing.ManualClock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Token caching (both ways) and the failed-authentication limit, with a counting store and a manual
 * clock: what a request costs (database reads) and which valid tokens a blocked address still gets
 * through.
 */
class TenantsTest {
    static final String ADMIN = "admin-token-0123456789";
    static final String HOST = "10.0.0.7";

    final ManualClock clock = new ManualClock(1_000_000);
    final CountingApps apps = new CountingApps();
    final FailedAuthLimiter failures =
            new FailedAuthLimiter(new FailedAuthLimiter.Limits(5, 60_000, 30_000, 1_000), clock);
    final Tenants tenants = new Tenants(apps, ADMIN, clock, new Tenants.TokenCaching(10_000, 5_000, 1_000), failures);

    @Test
    void anUnknownTokenIsLookedUpOnceWhileItsMissIsRemembered() {
        for (int i = 0; i < 4; i++) {
            assertThat(refusal("hg_guess", HOST)).isEqualTo(ErrorCode.UNAUTHENTICATED);
        }
        assertThat(apps.lookups.get())
                .as("database reads for one unknown token")
                .isEqualTo(1);
        clock.advance(5_000);
        assertThat(refusal("hg_guess", HOST)).isEqualTo(ErrorCode.UNAUTHENTICATED);
        assertThat(apps.lookups.get()).as("read again once the miss expired").isEqualTo(2);
    }

    @Test
    void theUnknownTokenCacheIsBounded() {
        Tenants small = new Tenants(
                apps,
                ADMIN,
                clock,
                new Tenants.TokenCaching(10_000, 5_000, 100),
                new FailedAuthLimiter(new FailedAuthLimiter.Limits(0, 60_000, 30_000, 100), clock));
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < 1_000; i++) {
                String token = "hg_guess-" + i;
                catchThrowableOfType(HourglassException.class, () -> small.authenticateToken(token, HOST));
            }
        }
        assertThat(apps.lookups.get())
                .as("1,000 distinct misses twice: at most 100 remembered, so the second round reads again")
                .isGreaterThanOrEqualTo(1_900);
    }

    @Test
    void aValidTokenIsReadOnceAndANewTokenWorksAtOnce() {
        apps.createApp("shop", 0);
        String first = tenants.issueToken("shop").token();
        assertThat(tenants.authenticateToken(first, HOST)).isEqualTo(Caller.ofApp("shop"));
        assertThat(tenants.authenticateToken(first, HOST)).isEqualTo(Caller.ofApp("shop"));
        assertThat(apps.lookups.get()).isEqualTo(1);
        String second = tenants.issueToken("shop").token();
        assertThat(tenants.authenticate("Bearer " + second, HOST)).isEqualTo(Caller.ofApp("shop"));
        assertThat(tenants.authenticateToken(ADMIN, HOST)).isEqualTo(Caller.asAdmin());
    }

    @Test
    void anAddressIsBlockedAfterTooManyFailuresAndOthersAreNot() {
        apps.createApp("shop", 0);
        String valid = tenants.issueToken("shop").token();
        for (int i = 0; i < 5; i++) {
            assertThat(refusal("hg_guess-" + i, HOST)).isEqualTo(ErrorCode.UNAUTHENTICATED);
        }
        HourglassException limited =
                catchThrowableOfType(HourglassException.class, () -> tenants.authenticateToken(valid, HOST));
        assertThat(limited)
                .as("a token this node never saw valid cannot be told from a guess without a read")
                .isInstanceOf(RateLimitedException.class);
        assertThat(limited.code()).isEqualTo(ErrorCode.RATE_LIMITED);
        assertThat(((RateLimitedException) limited).retryAfterSeconds()).isEqualTo(30);
        assertThat(refusal(ADMIN, HOST))
                .as("not even the admin token: serving it would tell a guesser the right guess")
                .isEqualTo(ErrorCode.RATE_LIMITED);
        int reads = apps.lookups.get();
        assertThat(refusal("hg_guess-new", HOST)).isEqualTo(ErrorCode.RATE_LIMITED);
        assertThat(apps.lookups.get()).as("a blocked address reads nothing").isEqualTo(reads);

        assertThat(tenants.authenticateToken(valid, "10.0.0.8")).isEqualTo(Caller.ofApp("shop"));
        assertThat(refusal("hg_guess-0", "10.0.0.8")).isEqualTo(ErrorCode.UNAUTHENTICATED);

        clock.advance(29_999);
        assertThat(refusal("hg_guess-late", HOST)).isEqualTo(ErrorCode.RATE_LIMITED);
        assertThat(tenants.authenticateToken(valid, HOST))
                .as("seen valid (from 10.0.0.8) since: served at the blocked address")
                .isEqualTo(Caller.ofApp("shop"));
        clock.advance(1);
        assertThat(refusal("hg_guess-late", HOST))
                .as("the block is over: read, and refused as unknown")
                .isEqualTo(ErrorCode.UNAUTHENTICATED);
    }

    @Test
    void requestsWithoutATokenAreNotCounted() {
        for (int i = 0; i < 20; i++) {
            assertThat(catchThrowableOfType(HourglassException.class, () -> tenants.authenticate(null, HOST))
                            .code())
                    .isEqualTo(ErrorCode.UNAUTHENTICATED);
            assertThat(catchThrowableOfType(HourglassException.class, () -> tenants.authenticate("Bearer ", HOST))
                            .code())
                    .isEqualTo(ErrorCode.UNAUTHENTICATED);
        }
        assertThat(tenants.authenticateToken(ADMIN, HOST)).isEqualTo(Caller.asAdmin());
        assertThat(apps.lookups.get()).isZero();
    }

    @Test
    void aTokenSeenValidIsServedAtABlockedAddressAndReadAgainWhenItsTrustRunsOut() {
        apps.createApp("shop", 0);
        String valid = tenants.issueToken("shop").token();
        assertThat(tenants.authenticateToken(valid, HOST)).isEqualTo(Caller.ofApp("shop"));
        blockHost();
        assertThat(tenants.authenticateToken(valid, HOST))
                .as("trusted from the cache")
                .isEqualTo(Caller.ofApp("shop"));
        int reads = apps.lookups.get();
        clock.advance(10_000); // the trust ran out; the block (30 s) did not
        assertThat(tenants.authenticateToken(valid, HOST))
                .as("seen valid: read again through the block")
                .isEqualTo(Caller.ofApp("shop"));
        assertThat(tenants.authenticateToken(valid, HOST)).isEqualTo(Caller.ofApp("shop"));
        assertThat(apps.lookups.get()).as("one read, then trusted again").isEqualTo(reads + 1);
        assertThat(refusal("hg_guess-new", HOST)).isEqualTo(ErrorCode.RATE_LIMITED);
        assertThat(apps.lookups.get())
                .as("a new guess at the blocked address reads nothing")
                .isEqualTo(reads + 1);
    }

    @Test
    void aRevokedTokenSeenValidIsReadOnceAtABlockedAddressThenNoMore() {
        apps.createApp("shop", 0);
        String token = tenants.issueToken("shop").token();
        assertThat(tenants.authenticateToken(token, HOST)).isEqualTo(Caller.ofApp("shop"));
        blockHost();
        apps.appByHash.remove(Tokens.hash(token)); // revoked through another node
        clock.advance(10_000);
        int reads = apps.lookups.get();
        assertThat(refusal(token, HOST)).isEqualTo(ErrorCode.UNAUTHENTICATED);
        assertThat(refusal(token, HOST)).as("known unknown now").isEqualTo(ErrorCode.UNAUTHENTICATED);
        assertThat(apps.lookups.get()).isEqualTo(reads + 1);
        clock.advance(5_000); // the miss is forgotten; the block (until 30 s) is not over
        assertThat(refusal(token, HOST))
                .as("no longer seen valid: like any other token at a blocked address")
                .isEqualTo(ErrorCode.RATE_LIMITED);
        assertThat(apps.lookups.get()).isEqualTo(reads + 1);
    }

    @Test
    void aKnownWrongTokenIsUnauthenticatedAtABlockedAddressAndReadsNothing() {
        assertThat(refusal("hg_stale", HOST)).isEqualTo(ErrorCode.UNAUTHENTICATED);
        blockHost();
        int reads = apps.lookups.get();
        assertThat(refusal("hg_stale", HOST))
                .as("the cache knows it is wrong: the true answer, not 'try again'")
                .isEqualTo(ErrorCode.UNAUTHENTICATED);
        assertThat(catchThrowableOfType(HourglassException.class, () -> tenants.authenticate(null, HOST))
                        .code())
                .as("no token at all")
                .isEqualTo(ErrorCode.UNAUTHENTICATED);
        assertThat(apps.lookups.get()).isEqualTo(reads);
    }

    @Test
    void aClientRepeatingOneWrongTokenCostsOneReadPerMissAndNeverBlocksItsAddress() {
        for (int i = 0; i < 2_950; i++) { // every 20 ms for 59 s: one window
            assertThat(refusal("hg_revoked", HOST)).isEqualTo(ErrorCode.UNAUTHENTICATED);
            clock.advance(20);
        }
        assertThat(apps.lookups.get())
                .as("one read per 5 s the miss is remembered")
                .isEqualTo(12);
        for (int i = 0; i < 4; i++) {
            assertThat(refusal("hg_guess-" + i, HOST)).isEqualTo(ErrorCode.UNAUTHENTICATED);
        }
        assertThat(refusal("hg_guess-4", HOST))
                .as("the repeated token counted once in the window, with 4 guesses: 5, blocked")
                .isEqualTo(ErrorCode.RATE_LIMITED);
    }

    /**
     * Issue 16, item 10, on the core: a client floods the shared address with 2,000 random tokens
     * while another sends a valid token every 20 ms (manual time, 60 s of it); the valid one is
     * always served and the flood costs the database as many reads as it takes to block the
     * address, then nothing.
     */
    @Test
    void aFloodOfGuessesFromASharedAddressNeverRefusesAValidTokenAndCostsFewReads() {
        apps.createApp("shop", 0);
        String valid = tenants.issueToken("shop").token();
        assertThat(tenants.authenticateToken(valid, HOST)).isEqualTo(Caller.ofApp("shop"));
        int readsBefore = apps.lookups.get();
        Map<ErrorCode, Integer> guesses = new java.util.EnumMap<>(ErrorCode.class);
        int served = 0;
        for (int tick = 0; tick < 3_000; tick++) { // 20 ms each
            if (tick < 2_000) {
                String guess = "hg_random-" + tick;
                guesses.merge(refusal(guess, HOST), 1, Integer::sum);
            }
            assertThat(tenants.authenticateToken(valid, HOST))
                    .as("the valid token at %d ms", tick * 20)
                    .isEqualTo(Caller.ofApp("shop"));
            served++;
            clock.advance(20);
        }
        assertThat(served).isEqualTo(3_000);
        // the fifth guess (at 80 ms) blocks the address until 30.08 s; the five guesses from then
        // block it again until 60.16 s: the 2,000 guesses (40 s of them) read 10 times
        assertThat(guesses).containsOnlyKeys(ErrorCode.UNAUTHENTICATED, ErrorCode.RATE_LIMITED);
        assertThat(guesses.get(ErrorCode.UNAUTHENTICATED)).isEqualTo(10);
        assertThat(apps.lookups.get() - readsBefore)
                .as("reads: 10 guesses + the valid token once per 10 s of trust (at 10, 20 … 50 s)")
                .isEqualTo(10 + 5);
    }

    /** Guesses from HOST until it is blocked (at most the 5 the limit allows). */
    private void blockHost() {
        for (int i = 0; i < 5 && failures.blockedForMs(HOST) == 0; i++) {
            assertThat(refusal("hg_guess-" + i, HOST)).isEqualTo(ErrorCode.UNAUTHENTICATED);
        }
        assertThat(refusal("hg_guess-next", HOST)).as("blocked").isEqualTo(ErrorCode.RATE_LIMITED);
    }

    private ErrorCode refusal(String token, String address) {
        HourglassException e =
                catchThrowableOfType(HourglassException.class, () -> tenants.authenticateToken(token, address));
        assertThat(e).as("refused").isNotNull();
        return e.code();
    }

    /** An in-memory app store that counts token lookups (each one a database read in production). */
    @Test
    void anEmptyAdminTokenIsRefusedSoThatSayingNothingNeverMakesAnAdmin() {
        for (String blank : new String[] {null, "", "   ", "\n"}) {
            assertThatThrownBy(() -> new Tenants(
                            new CountingApps(),
                            blank,
                            clock,
                            new Tenants.TokenCaching(10_000, 5_000, 1_000),
                            new FailedAuthLimiter(new FailedAuthLimiter.Limits(5, 60_000, 30_000, 1_000), clock)))
                    .as("admin token '%s'", blank)
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void aMissingOrBlankTokenIsUnauthenticated() {
        tenants.createApp("shop");
        for (String none : new String[] {null, "", " ", "\t"}) {
            HourglassException e =
                    catchThrowableOfType(HourglassException.class, () -> tenants.authenticateToken(none, HOST));
            assertThat(e).as("token '%s'", none).isNotNull();
            assertThat(e.code()).isEqualTo(ErrorCode.UNAUTHENTICATED);
        }
    }

    @Test
    void theAdminTokenAndAnIssuedTokenAuthenticate() {
        String token = tenants.createApp("shop").token();
        assertThat(tenants.authenticateToken(ADMIN, HOST).isAdmin()).isTrue();
        assertThat(tenants.authenticate("Bearer " + token, HOST).app()).isEqualTo("shop");
        assertThat(catchThrowableOfType(HourglassException.class, () -> tenants.authenticateToken(ADMIN + "x", HOST))
                        .code())
                .isEqualTo(ErrorCode.UNAUTHENTICATED);
    }

    static class CountingApps implements AppRepository {
        final AtomicInteger lookups = new AtomicInteger();
        final Map<String, String> appByHash = new HashMap<>();
        final List<String> apps = new ArrayList<>();
        final Map<String, TargetGrants> grants = new HashMap<>();

        @Override
        public boolean createApp(String name, long now) {
            if (apps.contains(name)) {
                return false;
            }
            return apps.add(name);
        }

        @Override
        public List<String> listApps() {
            return List.copyOf(apps);
        }

        @Override
        public boolean exists(String app) {
            return apps.contains(app);
        }

        @Override
        public void addToken(String app, String tokenId, String tokenHash, long now) {
            appByHash.put(tokenHash, app);
        }

        @Override
        public boolean revokeToken(String app, String tokenId, long now) {
            return false;
        }

        @Override
        public Optional<String> appOfToken(String tokenHash) {
            lookups.incrementAndGet();
            return Optional.ofNullable(appByHash.get(tokenHash));
        }

        @Override
        public TargetGrants targets(String app) {
            return grants.getOrDefault(app, TargetGrants.NONE);
        }

        @Override
        public void replaceTargets(String app, TargetGrants g) {
            grants.put(app, g);
        }

        @Override
        public Map<String, TargetGrants> allTargets() {
            return Map.copyOf(grants);
        }

        @Override
        public boolean setAlertWebhook(String app, String url) {
            throw new UnsupportedOperationException();
        }

        @Override
        public java.util.Optional<String> alertWebhook(String app) {
            return java.util.Optional.empty();
        }

        @Override
        public Map<String, String> alertWebhooks() {
            return Map.of();
        }
    }
}
