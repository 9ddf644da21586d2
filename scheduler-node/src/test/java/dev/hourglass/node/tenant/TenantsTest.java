package dev.hourglass.node.tenant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.hourglass.api.ErrorCode;
import dev.hourglass.api.HourglassException;
import dev.hourglass.node.testing.ManualClock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Who a token is: nobody is admin, or an app, by presenting nothing. */
class TenantsTest {
    private static final String ADMIN = "admin-token-0123456789";

    /** Apps and token hashes in memory. */
    static final class InMemoryApps implements AppRepository {
        final List<String> apps = new ArrayList<>();
        final Map<String, String> appByTokenHash = new HashMap<>();

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
            appByTokenHash.put(tokenHash, app);
        }

        @Override
        public boolean revokeToken(String app, String tokenId, long now) {
            return false;
        }

        @Override
        public Optional<String> appOfToken(String tokenHash) {
            return Optional.ofNullable(appByTokenHash.get(tokenHash));
        }
    }

    private final ManualClock clock = new ManualClock(1_000_000);

    @Test
    void anEmptyAdminTokenIsRefusedSoThatSayingNothingNeverMakesAnAdmin() {
        for (String blank : new String[] {null, "", "   ", "\n"}) {
            assertThatThrownBy(() -> new Tenants(new InMemoryApps(), blank, clock))
                    .as("admin token '%s'", blank)
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void aMissingOrEmptyTokenIsUnauthenticated() {
        Tenants tenants = new Tenants(new InMemoryApps(), ADMIN, clock);
        tenants.createApp("shop");
        for (String none : new String[] {null, "", " ", "\t"}) {
            HourglassException e =
                    catchThrowableOfType(HourglassException.class, () -> tenants.authenticateToken(none));
            assertThat(e).as("token '%s'", none).isNotNull();
            assertThat(e.code()).isEqualTo(ErrorCode.UNAUTHENTICATED);
        }
        assertThat(catchThrowableOfType(HourglassException.class, () -> tenants.authenticate("Bearer "))
                        .code())
                .isEqualTo(ErrorCode.UNAUTHENTICATED);
    }

    @Test
    void theAdminTokenAndAnIssuedTokenAuthenticate() {
        Tenants tenants = new Tenants(new InMemoryApps(), ADMIN, clock);
        String token = tenants.createApp("shop").token();
        assertThat(tenants.authenticateToken(ADMIN).isAdmin()).isTrue();
        assertThat(tenants.authenticate("Bearer " + token).app()).isEqualTo("shop");
        assertThat(catchThrowableOfType(HourglassException.class, () -> tenants.authenticateToken(ADMIN + "x"))
                        .code())
                .isEqualTo(ErrorCode.UNAUTHENTICATED);
    }
}
