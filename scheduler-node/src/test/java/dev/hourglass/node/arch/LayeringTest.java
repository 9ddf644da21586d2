package dev.hourglass.node.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** Keeps the core pure: no I/O, no adapters, no system clock. */
class LayeringTest {
    private static final JavaClasses NODE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.hourglass.node");

    private static final String[] CORE = {
        "dev.hourglass.node.job..", "dev.hourglass.node.timeindex..", "dev.hourglass.node.shard.."
    };

    @Test
    void theCoreKnowsNoAdapterAndNoInfrastructure() {
        noClasses()
                .that()
                .resideInAnyPackage(CORE)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "dev.hourglass.node.store..",
                        "dev.hourglass.node.api..",
                        "dev.hourglass.node.dispatch..",
                        "dev.hourglass.node.boot..",
                        "dev.hourglass.node.firing..",
                        "dev.hourglass.node.cluster..",
                        "dev.hourglass.node.dubbo..",
                        "java.sql..",
                        "java.net..",
                        "java.io..",
                        "org.apache.ibatis..",
                        "org.apache.curator..",
                        "org.apache.zookeeper..",
                        "org.apache.kafka..",
                        "org.apache.dubbo..",
                        "io.javalin..",
                        "com.fasterxml..",
                        "org.slf4j..")
                .check(NODE);
    }

    @Test
    void theCoreNeverReadsTheSystemClock() {
        noClasses()
                .that()
                .resideInAnyPackage(CORE)
                .should()
                .callMethod(System.class, "currentTimeMillis")
                .orShould()
                .callMethod(System.class, "nanoTime")
                .orShould()
                .callMethod(java.time.Instant.class, "now")
                .check(NODE);
    }

    /** The firing engine talks to the world through its ports: no store, broker or coordinator. */
    @Test
    void theEngineKnowsItsPortsNotTheirAdapters() {
        noClasses()
                .that()
                .resideInAnyPackage("dev.hourglass.node.firing..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "dev.hourglass.node.store..",
                        "dev.hourglass.node.api..",
                        "dev.hourglass.node.dispatch.http..",
                        "dev.hourglass.node.dispatch.kafka..",
                        "dev.hourglass.node.dispatch.dubbo..",
                        "dev.hourglass.node.cluster..",
                        "org.apache.ibatis..",
                        "org.apache.curator..",
                        "org.apache.zookeeper..",
                        "org.apache.kafka..",
                        "org.apache.dubbo..")
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
}
