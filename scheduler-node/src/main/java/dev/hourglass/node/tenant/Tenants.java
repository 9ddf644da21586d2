package dev.hourglass.node.tenant;

import dev.hourglass.api.ErrorCode;
import dev.hourglass.api.HourglassException;
import dev.hourglass.node.manage.Caller;
import dev.hourglass.node.manage.Names;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Apps, their tokens, and who a bearer token is. Valid app tokens are cached for
 * {@value #CACHE_MS} ms so the hot submit path does not read the token table per request; a
 * revocation through this node applies at once, through another node within that time.
 */
public final class Tenants {
    static final long CACHE_MS = 10_000;

    private record Cached(String app, long until) {}

    private final AppRepository apps;
    private final String adminToken;
    private final Clock clock;
    private final Map<String, Cached> byHash = new ConcurrentHashMap<>();

    /** @throws IllegalArgumentException when {@code adminToken} is null or blank: no caller may be admin by saying nothing */
    public Tenants(AppRepository apps, String adminToken, Clock clock) {
        if (adminToken == null || adminToken.isBlank()) {
            throw new IllegalArgumentException("the admin token must not be empty");
        }
        this.apps = apps;
        this.adminToken = adminToken;
        this.clock = clock;
    }

    public record IssuedToken(String app, String tokenId, String token) {}

    /** The caller behind an {@code Authorization} header value; UNAUTHENTICATED when none. */
    public Caller authenticate(String authorization) {
        if (authorization == null || !authorization.startsWith("Bearer ")) {
            throw new HourglassException(ErrorCode.UNAUTHENTICATED, "a bearer token is required");
        }
        String token = authorization.substring("Bearer ".length()).trim();
        return authenticateToken(token);
    }

    /** The caller behind a token (a bearer token, or Dubbo's {@code hourglass-token}); a missing or empty one is UNAUTHENTICATED. */
    public Caller authenticateToken(String token) {
        if (token == null || token.isBlank()) {
            throw new HourglassException(ErrorCode.UNAUTHENTICATED, "a bearer token is required");
        }
        if (Tokens.constantTimeEquals(token, adminToken)) {
            return Caller.asAdmin();
        }
        String hash = Tokens.hash(token);
        long now = clock.millis();
        Cached cached = byHash.get(hash);
        if (cached != null && cached.until() > now) {
            return Caller.ofApp(cached.app());
        }
        Optional<String> app = apps.appOfToken(hash);
        if (app.isEmpty()) {
            byHash.remove(hash);
            throw new HourglassException(ErrorCode.UNAUTHENTICATED, "the token is not valid");
        }
        byHash.put(hash, new Cached(app.get(), now + CACHE_MS));
        return Caller.ofApp(app.get());
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
        apps.addToken(app, id, Tokens.hash(token), clock.millis());
        return new IssuedToken(app, id, token);
    }

    public void revokeToken(String app, String tokenId) {
        if (!apps.revokeToken(app, tokenId, clock.millis())) {
            throw HourglassException.notFound("token " + tokenId + " of app " + app + " not found");
        }
        byHash.clear(); // the cache is keyed by hash, not id: drop it all, it refills on demand
    }

    public boolean exists(String app) {
        return apps.exists(app);
    }
}
