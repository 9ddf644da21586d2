package dev.hourglass.node.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.api.ErrorCode;
import dev.hourglass.api.HourglassException;
import dev.hourglass.node.core.job.AttemptHolderUnreachableException;
import dev.hourglass.node.core.port.StoreUnavailableException;
import dev.hourglass.node.tenant.Caller;
import dev.hourglass.node.tenant.RateLimitedException;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The rules HTTP and Dubbo share: one answer for each input, whichever door it came through. */
class FrontDoorRulesTest {
    final FrontDoorRules rules = new FrontDoorRules(Set.of("shop", "bank")::contains);
    final Caller admin = Caller.asAdmin();
    final Caller shop = Caller.ofApp("shop");

    private static HourglassException refusal(Runnable call) {
        try {
            call.run();
        } catch (HourglassException e) {
            return e;
        }
        throw new AssertionError("not refused");
    }

    @Test
    void anAppTokenActsOnItsOwnAppOnly() {
        assertThat(rules.actingApp(shop, null, "?app=NAME")).isEqualTo("shop");
        assertThat(rules.actingApp(shop, "shop", "?app=NAME")).isEqualTo("shop");
        for (String other : new String[] {"bank", "", " ", "nobody"}) {
            assertThat(refusal(() -> rules.actingApp(shop, other, "?app=NAME")).code())
                    .as("an app token naming '%s': another app's, a 404 whether or not it exists", other)
                    .isEqualTo(ErrorCode.NOT_FOUND);
        }
    }

    @Test
    void theAdminNamesAnAppThatExistsAndNotABlankOne() {
        assertThat(rules.actingApp(admin, "bank", "?app=NAME")).isEqualTo("bank");
        for (String none : new String[] {null, "", "   "}) {
            HourglassException e = refusal(() -> rules.actingApp(admin, none, "attachment hourglass-app"));
            assertThat(e.code()).as("the admin naming '%s'", none).isEqualTo(ErrorCode.INVALID_ARGUMENT);
            assertThat(e.field()).isEqualTo("app");
            assertThat(e.getMessage()).isEqualTo("the admin names the app: attachment hourglass-app");
        }
        HourglassException unknown = refusal(() -> rules.actingApp(admin, "nobody", "?app=NAME"));
        assertThat(unknown.code()).isEqualTo(ErrorCode.NOT_FOUND);
        assertThat(unknown.getMessage()).isEqualTo("app nobody not found");
    }

    @Test
    void theAdminNamingNoAppScopesEveryAppAnAppTokenItsOwn() {
        assertThat(rules.scope(admin, null, "?app=NAME")).isNull();
        assertThat(rules.scope(admin, "bank", "?app=NAME")).isEqualTo("bank");
        assertThat(rules.scope(shop, null, "?app=NAME")).isEqualTo("shop");
        assertThat(refusal(() -> rules.scope(admin, "", "?app=NAME")).code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    }

    @Test
    void onlyTheAdminPassesTheAdminCheck() {
        assertThat(FrontDoorRules.requireAdmin(admin)).isSameAs(admin);
        assertThat(refusal(() -> FrontDoorRules.requireAdmin(shop)).code()).isEqualTo(ErrorCode.PERMISSION_DENIED);
    }

    @Test
    void aJobIdThatIsNotANumberNamesNoJob() {
        assertThat(FrontDoorRules.jobId("1234567890123")).isEqualTo(1234567890123L);
        for (String raw : new String[] {"not-a-number", "", "99999999999999999999", null}) {
            HourglassException e = refusal(() -> FrontDoorRules.jobId(raw));
            assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
            assertThat(e.getMessage()).isEqualTo("job " + raw + " not found");
        }
    }

    @Test
    void aPageIsFiftyUnlessAskedAndOneToFiveHundred() {
        assertThat(FrontDoorRules.pageLimit(null)).isEqualTo(50);
        assertThat(FrontDoorRules.pageLimit(1)).isEqualTo(1);
        assertThat(FrontDoorRules.pageLimit(500)).isEqualTo(500);
        for (int bad : new int[] {0, -1, 501}) {
            HourglassException e = refusal(() -> FrontDoorRules.pageLimit(bad));
            assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
            assertThat(e.field()).isEqualTo("limit");
            assertThat(e.getMessage()).isEqualTo("limit must be in 1..500");
        }
    }

    @Test
    void aFailureReachesTheClientAsThePlainTypedErrorOfItsLibrary() {
        // a node-only subclass would reach a Dubbo client as a bare RuntimeException
        HourglassException unreachable =
                FrontDoorRules.toClient(new AttemptHolderUnreachableException("n1", 7, 1, 2_000), "test");
        assertThat(unreachable.getClass()).isEqualTo(HourglassException.class);
        assertThat(unreachable.code()).isEqualTo(ErrorCode.UNAVAILABLE);
        assertThat(unreachable.getMessage()).contains("node n1 holds attempt 1 of job 7", "nothing was changed");

        HourglassException limited = FrontDoorRules.toClient(new RateLimitedException("too many failures", 3_000), "t");
        assertThat(limited.getClass()).isEqualTo(HourglassException.class);
        assertThat(limited.code()).isEqualTo(ErrorCode.RATE_LIMITED);
        assertThat(limited.getMessage()).contains("too many failures", "try again in 3 s");

        HourglassException invalid = HourglassException.invalid("delayMs", "delayMs must not be negative");
        assertThat(FrontDoorRules.toClient(invalid, "test")).isSameAs(invalid);

        HourglassException down =
                FrontDoorRules.toClient(new StoreUnavailableException("connection refused", null), "test");
        assertThat(down.code()).isEqualTo(ErrorCode.UNAVAILABLE);
        assertThat(down.getMessage()).isEqualTo("the database is not available");

        HourglassException defect = FrontDoorRules.toClient(new IllegalStateException("a defect"), "test");
        assertThat(defect.code()).isEqualTo(ErrorCode.INTERNAL);
        assertThat(defect.getMessage()).as("nothing of the defect leaks").isEqualTo("internal error");
    }
}
