package dev.hourglass.node.tenant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import dev.hourglass.api.ErrorCode;
import dev.hourglass.api.HourglassException;
import dev.hourglass.node.testing.ManualClock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The new-token lane: reads of tokens the node has never seen valid hold at most the lane's
 * permits; a seen-valid token skips it; a waiting valid token gets the next permit. The database
 * is a fake whose reads of guessed tokens hang until the test lets them go, so "in the database"
 * is a state the test observes, not a race it hopes to win. Every wait is bounded.
 */
class TenantsLookupLaneTest {
    static final String ADMIN = "admin-token-0123456789";
    static final String HOST = "10.0.0.7";

    final ManualClock clock = new ManualClock(1_000_000);
    final HangingApps apps = new HangingApps();
    final ExecutorService pool = Executors.newFixedThreadPool(4);

    @AfterEach
    void stop() throws InterruptedException {
        apps.release.release(100);
        pool.shutdownNow();
        assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    TokenLookup lookup;

    private Tenants tenants(int concurrency, long maxWaitMs) {
        lookup = new TokenLookup(
                apps,
                new Tenants.TokenCaching(10_000, 5_000, 1_000),
                new TokenLookup.Lane(concurrency, maxWaitMs),
                clock);
        return new Tenants(
                apps,
                ADMIN,
                clock,
                lookup,
                new FailedAuthLimiter(new FailedAuthLimiter.Limits(0, 60_000, 30_000, 1_000), clock));
    }

    @Test
    void guessesHoldAtMostTheLanesPermitsAndASeenValidTokenSkipsTheLane() throws Exception {
        Tenants tenants = tenants(2, 0);
        apps.createApp("shop", 0);
        String valid = tenants.issueToken("shop").token();
        assertThat(tenants.authenticateToken(valid, HOST)).isEqualTo(Caller.ofApp("shop"));

        Future<ErrorCode> first = pool.submit(() -> refusal(tenants, "hg_guess-1"));
        Future<ErrorCode> second = pool.submit(() -> refusal(tenants, "hg_guess-2"));
        assertThat(apps.guessesInDatabase.tryAcquire(2, 10, TimeUnit.SECONDS))
                .as("two guesses in the database")
                .isTrue();

        HourglassException third =
                catchThrowableOfType(HourglassException.class, () -> tenants.authenticateToken("hg_guess-3", HOST));
        assertThat(third).as("no permit and no wait").isInstanceOf(RateLimitedException.class);
        assertThat(apps.lookups.get()).as("the third guess read nothing").isEqualTo(3);

        clock.advance(10_000); // the valid token's trust ran out: it needs a read
        assertThat(tenants.authenticateToken(valid, HOST))
                .as("seen valid: read outside the lane while it is full")
                .isEqualTo(Caller.ofApp("shop"));

        apps.release.release(2);
        assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(ErrorCode.UNAUTHENTICATED);
        assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo(ErrorCode.UNAUTHENTICATED);
        apps.release.release(1);
        assertThat(refusal(tenants, "hg_guess-3"))
                .as("room again: read and answered")
                .isEqualTo(ErrorCode.UNAUTHENTICATED);
    }

    @Test
    void aNewValidTokenWaitsForTheNextPermitInsteadOfBeingRefused() throws Exception {
        Tenants tenants = tenants(1, 10_000);
        apps.createApp("shop", 0);
        String fresh = tenants.issueToken("shop").token();

        Future<ErrorCode> guess = pool.submit(() -> refusal(tenants, "hg_guess-1"));
        assertThat(apps.guessesInDatabase.tryAcquire(1, 10, TimeUnit.SECONDS)).isTrue();
        Future<Caller> valid = pool.submit(() -> tenants.authenticateToken(fresh, HOST));
        await().atMost(Duration.ofSeconds(10)).until(() -> lookup.waitingForLane() == 1);
        assertThat(valid).as("waiting for the lane, not refused").isNotDone();

        apps.release.release(1);
        assertThat(guess.get(10, TimeUnit.SECONDS)).isEqualTo(ErrorCode.UNAUTHENTICATED);
        assertThat(valid.get(10, TimeUnit.SECONDS)).isEqualTo(Caller.ofApp("shop"));
    }

    @Test
    void aFailedReadGivesItsPermitBack() {
        Tenants tenants = tenants(1, 0);
        apps.failing = true;
        for (int i = 0; i < 3; i++) {
            String token = "hg_guess-" + i;
            assertThat(catchThrowableOfType(IllegalStateException.class, () -> tenants.authenticateToken(token, HOST)))
                    .as("the database error, not 'try again later'")
                    .hasMessage("database down");
        }
        apps.failing = false;
        apps.release.release(1);
        assertThat(refusal(tenants, "hg_guess-3")).isEqualTo(ErrorCode.UNAUTHENTICATED);
    }

    private static ErrorCode refusal(Tenants tenants, String token) {
        HourglassException e =
                catchThrowableOfType(HourglassException.class, () -> tenants.authenticateToken(token, HOST));
        assertThat(e).as("refused").isNotNull();
        return e.code();
    }

    /** Reads of issued tokens answer at once; reads of anything else wait for {@link #release}. */
    static final class HangingApps extends TenantsTest.CountingApps {
        final Semaphore guessesInDatabase = new Semaphore(0);
        final Semaphore release = new Semaphore(0);
        volatile boolean failing;

        @Override
        public Optional<String> appOfToken(String tokenHash) {
            if (failing) {
                throw new IllegalStateException("database down");
            }
            Optional<String> app = super.appOfToken(tokenHash); // counts the read
            if (app.isPresent()) {
                return app;
            }
            guessesInDatabase.release();
            try {
                if (!release.tryAcquire(10, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test never let the read go");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            return app;
        }
    }
}
