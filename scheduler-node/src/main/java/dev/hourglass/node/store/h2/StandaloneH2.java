package dev.hourglass.node.store.h2;

import dev.hourglass.node.store.mybatis.Database;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The standalone node's database: H2 2.5 (MySQL mode) in the data directory, opened so that an
 * acknowledged commit survives kill -9 and the file stays bounded. docs/design.md, "Standalone
 * mode", has the measurements behind each setting.
 *
 * <ul>
 *   <li>{@code WRITE_DELAY=0}: every commit writes its chunk to the file before it returns (H2's
 *       default writes up to 500 ms later: kill -9 lost acknowledged jobs and claims).
 *   <li>{@link H2CrashRepair} before the open: after an unclean stop, lets H2 find the chunks it
 *       wrote after a broken chunk chain (an H2 defect that lost the last commits of about one
 *       kill in ten).
 *   <li>{@code CHECKPOINT SYNC} every {@link #DISK_SYNC}: H2 never fsyncs at commit; this bounds
 *       what a power cut can take to about the last second (not tested: no power-loss test) and makes the short retention below
 *       safe by H2's own rule (old chunks may be overwritten once the file system has written the
 *       newer ones out).
 *   <li>{@code RETENTION_TIME=}{@link #RETENTION}: H2 keeps each chunk this long before it
 *       reuses its space (45 s by default), which bounds the file's growth under a steady
 *       stream of commits (one chunk each): 890 MB after 72,000 submits at 900/s with 45 s; 5 s
 *       halved the growth on bare H2.
 *   <li>{@code DB_CLOSE_ON_EXIT=FALSE}: H2's own shutdown hook would close the database under the
 *       graceful stop, which still writes results; the node closes it as its last step.
 * </ul>
 */
public final class StandaloneH2 {
    private static final Logger LOG = LoggerFactory.getLogger(StandaloneH2.class);
    static final String FILE_NAME = "hourglass";
    static final Duration DISK_SYNC = Duration.ofSeconds(1);
    static final Duration RETENTION = Duration.ofSeconds(5);

    private StandaloneH2() {}

    /** Repairs the file if the last stop was unclean, opens it (migrating the schema) and starts the disk sync. */
    public static Database open(Path dataDir, int poolSize, int enginePoolSize, MeterRegistry metrics) {
        Path base = dataDir.toAbsolutePath().resolve(FILE_NAME);
        long started = System.nanoTime();
        H2CrashRepair.Outcome repair;
        try {
            repair = H2CrashRepair.repair(base.resolveSibling(FILE_NAME + ".mv.db"));
        } catch (RuntimeException e) {
            // whatever the repair trips over, H2's own recovery still gets its chance
            repair = new H2CrashRepair.Outcome(H2CrashRepair.Kind.SKIPPED, -1, -1, "the repair failed: " + e);
        }
        long tookMs = (System.nanoTime() - started) / 1_000_000;
        switch (repair.kind()) {
            case REPAIRED ->
                LOG.warn(
                        "standalone: the H2 file was not closed cleanly and its header named store version {} though"
                                + " versions up to {} were written after it; the header now names {} ({} ms)",
                        repair.headerVersion(),
                        repair.newestVersion(),
                        repair.newestVersion(),
                        tookMs);
            case UP_TO_DATE ->
                LOG.info(
                        "standalone: the H2 file was not closed cleanly; its header names the newest chunk ({} ms)",
                        tookMs);
            case SKIPPED -> LOG.warn("standalone: H2 file left to H2's own recovery: {}", repair.reason());
            case NO_FILE, CLEAN -> {}
        }
        Database database = new Database(url(base), "sa", "", poolSize, enginePoolSize, metrics);
        database.runEvery(DISK_SYNC, "CHECKPOINT SYNC", "hourglass-h2-sync");
        LOG.info("standalone: embedded H2 database in {}", dataDir.toAbsolutePath());
        return database;
    }

    /** The JDBC URL of the standalone database whose files start with {@code base} (tests use it too). */
    public static String url(Path base) {
        return "jdbc:h2:file:" + base + ";MODE=MySQL;DATABASE_TO_LOWER=TRUE;CASE_INSENSITIVE_IDENTIFIERS=TRUE"
                + ";DEFAULT_NULL_ORDERING=HIGH;WRITE_DELAY=0;RETENTION_TIME=" + RETENTION.toMillis()
                + ";DB_CLOSE_ON_EXIT=FALSE";
    }
}
