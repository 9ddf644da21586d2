package dev.hourglass.node.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The layers of docs/design.md's map, checked: the core ({@code core..}: the domain, its rules and
 * every port) knows nothing else; the application ({@code firing}, {@code manage}, …) knows the
 * core and not the adapters; only the composition root ({@code boot}) builds adapters.
 */
class LayeringTest {
    private static final JavaClasses NODE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.hourglass.node");

    private static final String CORE = "dev.hourglass.node.core..";

    /** What uses the core's ports: the engine and the operations behind the front doors. */
    private static final String[] APPLICATION = {
        "dev.hourglass.node.firing..",
        "dev.hourglass.node.manage..",
        "dev.hourglass.node.catalog..",
        "dev.hourglass.node.tenant..",
        "dev.hourglass.node.alert..",
        "dev.hourglass.node.retention..",
        "dev.hourglass.node.bulk..",
        "dev.hourglass.node.pull..",
        "dev.hourglass.node.schedule..",
        "dev.hourglass.node.background.."
    };

    /** What plugs the core into the world: stores, coordinator, dispatchers, front doors, metrics. */
    private static final String[] ADAPTERS = {
        "dev.hourglass.node.store..",
        "dev.hourglass.node.cluster..",
        "dev.hourglass.node.dispatch..",
        "dev.hourglass.node.api..",
        "dev.hourglass.node.dubbo..",
        "dev.hourglass.node.metrics..",
        "dev.hourglass.node.cron..",
        "dev.hourglass.node.config..",
        "dev.hourglass.node.boot.."
    };

    /** Libraries that do I/O. ({@code java.net.URI} is a parser and stays allowed.) */
    private static final String[] INFRASTRUCTURE = {
        "java.sql..",
        "java.net.http..",
        "org.apache.ibatis..",
        "com.zaxxer.hikari..",
        "org.flywaydb..",
        "org.apache.curator..",
        "org.apache.zookeeper..",
        "org.apache.kafka..",
        "org.apache.dubbo..",
        "io.javalin..",
        "org.eclipse.jetty..",
        "com.fasterxml..",
        "io.micrometer..",
        "org.mariadb..",
        "org.h2..",
        "org.springframework.."
    };

    /** Plain Java and the wire types only: no logging, no I/O, no library, nothing of the node outside. */
    @Test
    void theCoreDependsOnNothingButItselfTheWireTypesAndPlainJava() {
        classes()
                .that()
                .resideInAPackage(CORE)
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage(
                        CORE, "dev.hourglass.api..", "java.lang..", "java.util..", "java.time..", "java.math..")
                .check(NODE);
    }

    @Test
    void theCoreNeverReadsTheSystemClock() {
        noClasses()
                .that()
                .resideInAPackage(CORE)
                .should()
                .callMethod(System.class, "currentTimeMillis")
                .orShould()
                .callMethod(System.class, "nanoTime")
                .orShould()
                .callMethod(java.time.Instant.class, "now")
                .check(NODE);
    }

    /**
     * The engine reads time only through its clock and its schedulers, so its unit tests run on a
     * manual clock: a read of the system clock would make them wait, or pass by luck.
     */
    @Test
    void theEngineReadsTimeOnlyThroughItsClockAndSchedulers() {
        noClasses()
                .that()
                .resideInAPackage("dev.hourglass.node.firing..")
                .should()
                .callMethod(System.class, "currentTimeMillis")
                .orShould()
                .callMethod(System.class, "nanoTime")
                .orShould()
                .callMethod(java.time.Instant.class, "now")
                .orShould()
                .callMethod(Thread.class, "sleep", long.class)
                .check(NODE);
    }

    /** The engine and the operations reach the world through the core's ports only. */
    @Test
    void theApplicationKnowsThePortsNotTheAdapters() {
        noClasses()
                .that()
                .resideInAnyPackage(APPLICATION)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(ADAPTERS)
                .orShould()
                .dependOnClassesThat()
                .resideInAnyPackage(INFRASTRUCTURE)
                .check(NODE);
    }

    /** Every port is an interface in {@code core.port}: one look shows what the core needs of the world. */
    @Test
    void adaptersImplementPortsFromOnePlace() {
        noClasses()
                .that()
                .resideInAnyPackage(ADAPTERS)
                .should()
                .implement(com.tngtech.archunit.base.DescribedPredicate.describe(
                        "an interface of the application's packages",
                        (com.tngtech.archunit.core.domain.JavaClass c) ->
                                c.isInterface() && isApplication(c.getPackageName())))
                .check(NODE);
    }

    /** Database failures are typed by the store (StoreUnavailableException); nobody else sees JDBC. */
    @Test
    void onlyTheStoreKnowsTheDatabaseLibraries() {
        noClasses()
                .that()
                .resideOutsideOfPackages("dev.hourglass.node.store..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("org.apache.ibatis..", "com.zaxxer.hikari..", "org.flywaydb..", "java.sql..")
                .check(NODE);
    }

    @Test
    void onlyTheCompositionRootBuildsAdapters() {
        noClasses()
                .that()
                .resideOutsideOfPackages("dev.hourglass.node.boot..", "dev.hourglass.node.store..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("dev.hourglass.node.store..")
                .check(NODE);
    }

    private static boolean isApplication(String pkg) {
        for (String p : APPLICATION) {
            String root = p.substring(0, p.length() - 2);
            if (pkg.equals(root) || pkg.startsWith(root + ".")) {
                return true;
            }
        }
        return false;
    }
}
