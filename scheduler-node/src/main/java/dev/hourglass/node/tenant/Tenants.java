package dev.hourglass.node.tenant;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.hourglass.api.ErrorCode;
import dev.hourglass.api.HourglassException;
import dev.hourglass.node.job.Names;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Apps, their tokens, and who a bearer token is.
 *
 * <p>Token lookups are cached both ways, keyed by the token's hash, each cache bounded in size
 * (Caffeine): a valid token is trusted for {@code validMs} without reading the token table (a
 * revocation through this node applies at once, through another node within that time); an
 * unknown token is remembered as unknown for {@code unknownMs}, so repeating it costs no database
 * read. A token issued through this node is dropped from the unknown cache as it is issued; one
 * issued through another node cannot be in it, since nobody could present it before it existed.
 *
 * <p>Failed authentications count against the client address ({@link FailedAuthLimiter}); a
 * blocked address is refused with {@link RateLimitedException} before its token is looked at.
 * A request without any token is not counted: it guesses nothing and reads nothing.
 */
public final class Tenants {
    /**
     * @param validMs how long a valid token is trusted without a database read (0: never cached)
     * @param unknownMs how long an unknown token is remembered as unknown (0: never cached)
     * @param maxEntries most tokens each of the two caches holds
     */
    public record TokenCaching(long validMs, long unknownMs, int maxEntries) {}

    private final AppRepository apps;
    private final String adminToken;
    private final Clock clock;
    private final FailedAuthLimiter failures;
    /** token hash → app */
    private final Cache<String, String> validTokens;
    /** token hashes the database did not know */
    private final Cache<String, Boolean> unknownTokens;

    /** @throws IllegalArgumentException when {@code adminToken} is null or blank: no caller may be admin by saying nothing */
    public Tenants(
            AppRepository apps, String adminToken, Clock clock, TokenCaching caching, FailedAuthLimiter failures) {
        if (adminToken == null || adminToken.isBlank()) {
            throw new IllegalArgumentException("the admin token must not be empty");
        }
        this.apps = apps;
        this.adminToken = adminToken;
        this.clock = clock;
        this.failures = failures;
        this.validTokens = cache(caching.validMs(), caching.maxEntries(), clock);
        this.unknownTokens = cache(caching.unknownMs(), caching.maxEntries(), clock);
    }

    private static <V> Cache<String, V> cache(long ttlMs, int maxEntries, Clock clock) {
        return Caffeine.newBuilder()
                .maximumSize(ttlMs == 0 ? 0 : maxEntries)
                .expireAfterWrite(Duration.ofMillis(ttlMs))
                .ticker(() -> TimeUnit.MILLISECONDS.toNanos(clock.millis()))
                .executor(Runnable::run)
                .build();
    }

    public record IssuedToken(String app, String tokenId, String token) {}

    /**
     * The caller behind an {@code Authorization} header value, from a client address (for the
     * failed-authentication limit; null when unknown). UNAUTHENTICATED when there is no valid
     * token; RATE_LIMITED when the address is blocked.
     */
    public Caller authenticate(String authorization, String clientAddress) {
        requireNotBlocked(clientAddress);
        if (authorization == null || !authorization.startsWith("Bearer ")) {
            throw new HourglassException(ErrorCode.UNAUTHENTICATED, "a bearer token is required");
        }
        String token = authorization.substring("Bearer ".length()).trim();
        return authenticateToken(token, clientAddress);
    }

    /**
     * Like {@link #authenticate} for a bare token (the Dubbo attachment); a missing or blank one is
     * UNAUTHENTICATED before it is compared with anything.
     */
    public Caller authenticateToken(String token, String clientAddress) {
        requireNotBlocked(clientAddress);
        if (token == null || token.isBlank()) {
            throw new HourglassException(ErrorCode.UNAUTHENTICATED, "a bearer token is required");
        }
        if (Tokens.constantTimeEquals(token, adminToken)) {
            return Caller.asAdmin();
        }
        String app = appOf(Tokens.hash(token));
        if (app == null) {
            failures.recordFailure(clientAddress);
            throw new HourglassException(ErrorCode.UNAUTHENTICATED, "the token is not valid");
        }
        return Caller.ofApp(app);
    }

    /** The app of an unrevoked token hash, or null; through the two caches. */
    private String appOf(String hash) {
        String cached = validTokens.getIfPresent(hash);
        if (cached != null) {
            return cached;
        }
        if (unknownTokens.getIfPresent(hash) != null) {
            return null;
        }
        Optional<String> app = apps.appOfToken(hash);
        if (app.isEmpty()) {
            unknownTokens.put(hash, Boolean.TRUE);
            return null;
        }
        validTokens.put(hash, app.get());
        return app.get();
    }

    private void requireNotBlocked(String clientAddress) {
        long blockedMs = failures.blockedForMs(clientAddress);
        if (blockedMs > 0) {
            throw new RateLimitedException("too many failed authentications from this address", blockedMs);
        }
    }

    public IssuedToken createApp(String name) {
        Names.requireName("name", name);
        if (!apps.createApp(name, clock.millis())) {
            throw HourglassException.conflict("app " + name + " exists already");
        }
        return issueToken(name);
    }

    public List<String> listApps() {
        return apps.listApps();
    }

    public IssuedToken issueToken(String app) {
        if (!apps.exists(app)) {
            throw HourglassException.notFound("app " + app + " not found");
        }
        String token = Tokens.newToken();
        String id = Tokens.newTokenId();
        String hash = Tokens.hash(token);
        apps.addToken(app, id, hash, clock.millis());
        unknownTokens.invalidate(hash); // never shadowed by an earlier miss, however unlikely
        return new IssuedToken(app, id, token);
    }

    public void revokeToken(String app, String tokenId) {
        if (!apps.revokeToken(app, tokenId, clock.millis())) {
            throw HourglassException.notFound("token " + tokenId + " of app " + app + " not found");
        }
        validTokens.invalidateAll(); // keyed by hash, not id: drop it all, it refills on demand
    }

    public boolean exists(String app) {
        return apps.exists(app);
    }
}
