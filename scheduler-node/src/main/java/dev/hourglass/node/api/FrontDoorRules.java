package dev.hourglass.node.api;

import dev.hourglass.api.ErrorCode;
import dev.hourglass.api.HourglassException;
import dev.hourglass.node.core.port.StoreUnavailableException;
import dev.hourglass.node.tenant.Caller;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rules both front doors (HTTP and Dubbo) apply to a call before and after the core handles it,
 * written once so that they cannot drift apart: which app a caller acts on, what a job id is, how
 * long a page may be, and what a failure looks like to the client (docs/api.md, "Errors"). Each
 * door only reads its transport (a header or an attachment, a path or an argument) and writes the
 * answer.
 */
public final class FrontDoorRules {
    private static final Logger LOG = LoggerFactory.getLogger(FrontDoorRules.class);

    /** A list call's page without {@code limit}. */
    public static final int DEFAULT_PAGE = 50;
    /** The longest page a list call returns. */
    public static final int MAX_PAGE = 500;

    private final Predicate<String> appExists;

    /** @param appExists whether an app of that name exists ({@code Tenants::exists}) */
    public FrontDoorRules(Predicate<String> appExists) {
        this.appExists = appExists;
    }

    /** The caller, if it holds the admin token; else PERMISSION_DENIED. */
    public static Caller requireAdmin(Caller caller) {
        if (!caller.isAdmin()) {
            throw new HourglassException(ErrorCode.PERMISSION_DENIED, "this needs the admin token");
        }
        return caller;
    }

    /**
     * The app a call acts on: an app token's own app (naming another is NOT_FOUND, whether or not
     * it exists: another app's things are 404s, and an app's existence leaks no more than they do),
     * or the app the admin names, which must exist. An admin naming none, or a blank name, is
     * INVALID_ARGUMENT on {@code app}; {@code howToName} says how to name one on this door.
     */
    public String actingApp(Caller caller, String named, String howToName) {
        if (!caller.isAdmin()) {
            if (named != null && !named.equals(caller.app())) {
                throw HourglassException.notFound(
                        "app " + named + " not found (an app token acts on its own app only)");
            }
            return caller.app();
        }
        if (named == null || named.isBlank()) {
            throw HourglassException.invalid("app", "the admin names the app: " + howToName);
        }
        if (!appExists.test(named)) {
            throw HourglassException.notFound("app " + named + " not found");
        }
        return named;
    }

    /** Like {@link #actingApp}, but the admin naming no app means every app (null). */
    public String scope(Caller caller, String named, String howToName) {
        if (caller.isAdmin() && named == null) {
            return null;
        }
        return actingApp(caller, named, howToName);
    }

    /** A job id as a client sends it; one that is not a number names no job: NOT_FOUND. */
    public static long jobId(String raw) {
        try {
            return Long.parseLong(raw);
        } catch (NumberFormatException e) {
            throw HourglassException.notFound("job " + raw + " not found");
        }
    }

    /** A list call's page length: {@value #DEFAULT_PAGE} when not given, else 1..{@value #MAX_PAGE}. */
    public static int pageLimit(Integer given) {
        if (given == null) {
            return DEFAULT_PAGE;
        }
        if (given < 1 || given > MAX_PAGE) {
            throw HourglassException.invalid("limit", "limit must be in 1.." + MAX_PAGE);
        }
        return given;
    }

    /**
     * What a failure looks like to the client, whichever door it came through: always a plain
     * {@link HourglassException} of the client library (a node-only subclass would not reach a Dubbo
     * client as itself, nor deserialize there); a database that cannot be reached is UNAVAILABLE
     * (nothing was acknowledged: the call may be retried); anything else is INTERNAL, logged with
     * its stack trace. {@code where} names the call in the log.
     */
    public static HourglassException toClient(Exception failure, String where) {
        if (failure instanceof HourglassException e) {
            return e.getClass() == HourglassException.class
                    ? e
                    : new HourglassException(e.code(), e.getMessage(), e.field(), e.retryAfterMs(), null);
        }
        if (failure instanceof StoreUnavailableException) {
            LOG.warn("database unavailable on {}: {}", where, failure.getMessage());
            return new HourglassException(ErrorCode.UNAVAILABLE, "the database is not available");
        }
        LOG.error("unexpected error on {}", where, failure);
        return new HourglassException(ErrorCode.INTERNAL, "internal error");
    }
}
