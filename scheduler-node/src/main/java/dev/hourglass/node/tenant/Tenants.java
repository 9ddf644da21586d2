package dev.hourglass.node.tenant;

import dev.hourglass.api.ErrorCode;
import dev.hourglass.api.HourglassException;
import dev.hourglass.node.core.job.Names;
import dev.hourglass.node.core.port.AppRepository;
import java.time.Clock;
import java.util.List;

/**
 * Apps, their tokens, and who a bearer token is.
 *
 * <p>Token lookups go through {@link TokenLookup}: a valid token is trusted for {@code validMs}
 * without reading the token table (a revocation through this node applies at once, through another
 * node within that time); an unknown token is remembered as unknown for {@code unknownMs}, so
 * repeating it costs no database read; reads of tokens never seen valid share a small lane of
 * database connections, so a flood of made-up tokens cannot take the API's pool.
 *
 * <p>Failed authentications count against the client address ({@link FailedAuthLimiter}). Many
 * clients may share an address (a NAT, a gateway, a sidecar), so a block refuses only what the
 * node cannot vouch for without a database read. In order:
 *
 * <ol>
 *   <li>no token: UNAUTHENTICATED, not counted (it guesses nothing and reads nothing);
 *   <li>a trusted token: served, blocked address or not (no read);
 *   <li>a token known unknown: UNAUTHENTICATED (no read), counted once per window;
 *   <li>a token this node has seen valid: read again and served if still valid, blocked address
 *       or not;
 *   <li>any other token from a blocked address: RATE_LIMITED, no read. A valid app token is
 *       refused here only if this node has never seen it valid: without the read the block saves,
 *       it cannot be told from a guess. The admin token is refused here too, on purpose: an
 *       operator may choose it (16 characters at least), so guesses at it stay limited, and
 *       serving it at a blocked address would tell a guesser which guess was right. App tokens
 *       are 256 random bits: letting a seen-valid one through tells a guesser nothing;
 *   <li>the admin token: served (compared in constant time, no read);
 *   <li>any other token: read through the new-token lane (RATE_LIMITED when it has no room in
 *       time); UNAUTHENTICATED and counted when the database does not know it.
 * </ol>
 */
public final class Tenants {
    /**
     * @param validMs how long a valid token is trusted without a database read (0: never cached)
     * @param unknownMs how long an unknown token is remembered as unknown (0: never cached)
     * @param maxEntries most tokens each of the token caches holds
     */
    public record TokenCaching(long validMs, long unknownMs, int maxEntries) {}

    private final AppRepository apps;
    private final String adminToken;
    private final Clock clock;
    private final FailedAuthLimiter failures;
    private final TokenLookup tokens;

    /**
     * With the default new-token lane ({@link TokenLookup.Lane#DEFAULT}).
     *
     * @throws IllegalArgumentException when {@code adminToken} is null or blank: no caller may be admin by saying nothing
     */
    public Tenants(
            AppRepository apps, String adminToken, Clock clock, TokenCaching caching, FailedAuthLimiter failures) {
        this(apps, adminToken, clock, new TokenLookup(apps, caching, TokenLookup.Lane.DEFAULT, clock), failures);
    }

    Tenants(AppRepository apps, String adminToken, Clock clock, TokenLookup tokens, FailedAuthLimiter failures) {
        if (adminToken == null || adminToken.isBlank()) {
            throw new IllegalArgumentException("the admin token must not be empty");
        }
        this.apps = apps;
        this.adminToken = adminToken;
        this.clock = clock;
        this.failures = failures;
        this.tokens = tokens;
    }

    public record IssuedToken(String app, String tokenId, String token) {}

    /**
     * The caller behind an {@code Authorization} header value, from a client address (for the
     * failed-authentication limit; null when unknown). UNAUTHENTICATED when there is no valid
     * token; RATE_LIMITED when the token cannot be checked now (see the class comment).
     */
    public Caller authenticate(String authorization, String clientAddress) {
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
        if (token == null || token.isBlank()) {
            throw new HourglassException(ErrorCode.UNAUTHENTICATED, "a bearer token is required");
        }
        String hash = Tokens.hash(token);
        String app = tokens.trusted(hash);
        if (app != null) {
            return Caller.ofApp(app);
        }
        if (tokens.knownUnknown(hash)) {
            throw notValid(hash, clientAddress);
        }
        if (!tokens.seenValid(hash)) {
            requireNotBlocked(clientAddress);
            if (Tokens.constantTimeEquals(token, adminToken)) {
                return Caller.asAdmin();
            }
        }
        app = tokens.read(hash);
        if (app == null) {
            throw notValid(hash, clientAddress);
        }
        return Caller.ofApp(app);
    }

    private HourglassException notValid(String hash, String clientAddress) {
        failures.recordFailure(clientAddress, hash);
        return new HourglassException(ErrorCode.UNAUTHENTICATED, "the token is not valid");
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
        tokens.issued(hash);
        return new IssuedToken(app, id, token);
    }

    public void revokeToken(String app, String tokenId) {
        if (!apps.revokeToken(app, tokenId, clock.millis())) {
            throw HourglassException.notFound("token " + tokenId + " of app " + app + " not found");
        }
        tokens.revoked();
    }

    public boolean exists(String app) {
        return apps.exists(app);
    }
}
