package dev.hourglass.node.tenant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.hourglass.api.ErrorCode;
import dev.hourglass.api.HourglassException;
import dev.hourglass.node.core.service.TargetGrants;
import dev.hourglass.node.core.service.TargetNames;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The rules of delivery targets: patterns, names named after apps, grants, and the delivery-time snapshot. */
class DeliveryTargetsTest {
    final TenantsTest.CountingApps apps = new TenantsTest.CountingApps();

    @ParameterizedTest(name = "{0} ~ {1}: {2}")
    @CsvSource({
        "shop.*, shop.orders, true",
        "shop.*, shop., true",
        "shop.*, shop, false",
        "shop.*, shopping.x, false",
        "*, anything, true",
        "*.close, orders.close, true",
        "*.close, orders.closed, false",
        "a*b*c, abc, true",
        "a*b*c, axxbyyc, true",
        "a*b*c, axxbyy, false",
        "a*a*a*a*a*b, aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa, false",
        "audit, audit, true",
        "audit, Audit, false",
        "audit, audit.x, false",
        "s?op, shop, false",
    })
    void patternsMatchWholeNamesWithStarForAnyRun(String pattern, String name, boolean matches) {
        assertThat(TargetGrants.matches(pattern, name)).isEqualTo(matches);
    }

    @Test
    void patternsAreCheckedSortedAndDeduplicated() {
        TargetGrants g = TargetGrants.of(List.of("b.*", "a", "b.*"), null, false);
        assertThat(g.kafkaTopics()).containsExactly("a", "b.*");
        assertThat(g.dubboGroups()).isEmpty();
        for (String bad : new String[] {"", "has space", "a,b", "ü", "t".repeat(250)}) {
            HourglassException e =
                    catchThrowableOfType(HourglassException.class, () -> TargetGrants.of(List.of(bad), null, false));
            assertThat(e.field()).as(bad).isEqualTo("kafkaTopics");
        }
        assertThat(catchThrowableOfType(
                                HourglassException.class, () -> TargetGrants.of(null, List.of("g".repeat(129)), false))
                        .field())
                .isEqualTo("dubboGroups");
        assertThat(catchThrowableOfType(
                                HourglassException.class,
                                () -> TargetGrants.of(java.util.Collections.nCopies(101, "x"), null, false))
                        .field())
                .isEqualTo("kafkaTopics");
    }

    @ParameterizedTest(name = "{0} belongs to {1}")
    @CsvSource({
        "shop, shop",
        "shop.orders, shop",
        "shop-events, shop",
        "shop-europe, shop",
        "shop-eu, shop-eu",
        "shop-eu.orders, shop-eu",
        "shop-eu-1.x, shop-eu",
        "shopping, ",
        "billing.x, billing",
        "orders.close, ",
        "shop_orders, ",
    })
    void aNameBelongsToTheLongestAppItIsNamedAfter(String name, String owner) {
        assertThat(TargetNames.ownerOf(name, Set.of("shop", "shop-eu", "billing")))
                .isEqualTo(owner);
    }

    @Test
    void savingChecksOwnNamesAndGrantsAndNamesTheField() {
        apps.createApp("shop", 0);
        apps.createApp("billing", 0);
        DeliveryTargets targets = new DeliveryTargets(apps);

        targets.requireTopic("shop", "shop.orders");
        targets.requireDubboGroup("shop", "shop-v2", false);
        targets.requireDubboGroup("shop", null, true); // a direct url: the host allow-list governs it
        assertRefused(() -> targets.requireTopic("shop", "billing.invoices"), "topic", "named after app billing");
        assertRefused(() -> targets.requireDubboGroup("shop", "billing", false), "dubboGroup", "billing");
        assertRefused(() -> targets.requireDubboGroup("shop", "billing", true), "dubboGroup", "billing");
        assertRefused(() -> targets.requireDubboGroup("shop", null, false), "dubboGroup", "default group");

        targets.replaceGrants("shop", TargetGrants.of(List.of("billing.*"), List.of("bill*"), true));
        targets.requireTopic("shop", "billing.invoices");
        targets.requireDubboGroup("shop", "billing", false);
        targets.requireDubboGroup("shop", null, false);
        assertRefused(() -> targets.requireTopic("shop", "billing"), "topic", "not allowed");
        assertThat(targets.grants("shop").dubboGroups()).containsExactly("bill*");
        assertThat(catchThrowableOfType(HourglassException.class, () -> targets.grants("nope"))
                        .code())
                .isEqualTo(ErrorCode.NOT_FOUND);
    }

    @Test
    void deliveriesSeeChangesThroughThisNodeAtOnceAndThroughOthersAfterARefresh() {
        apps.createApp("shop", 0);
        DeliveryTargets targets = new DeliveryTargets(apps);
        assertThat(targets.topicRefusal("shop", "audit")).contains("not allowed for app shop");
        targets.replaceGrants("shop", TargetGrants.of(List.of("audit"), null, false));
        assertThat(targets.topicRefusal("shop", "audit")).isNull();

        apps.replaceTargets("shop", TargetGrants.NONE); // as another node would
        assertThat(targets.topicRefusal("shop", "audit"))
                .as("until the refresh")
                .isNull();
        targets.refresh();
        assertThat(targets.topicRefusal("shop", "audit")).isNotNull();
    }

    @Test
    void anAppCreatedAfterTheSnapshotReachesItsOwnNames() {
        DeliveryTargets targets = new DeliveryTargets(apps);
        apps.createApp("shop", 0);
        assertThat(targets.topicRefusal("shop", "shop.orders")).isNull();
        assertThat(targets.dubboGroupRefusal("shop", "shop", false)).isNull();
        assertThat(targets.dubboGroupRefusal("shop", null, false)).contains("default group");
    }

    private static void assertRefused(Runnable check, String field, String message) {
        HourglassException e = catchThrowableOfType(HourglassException.class, check::run);
        assertThat(e).as("refused").isNotNull();
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
        assertThat(e.field()).isEqualTo(field);
        assertThat(e.getMessage()).contains(message);
    }
}
