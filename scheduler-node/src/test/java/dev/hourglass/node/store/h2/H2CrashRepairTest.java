package dev.hourglass.node.store.h2;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.node.store.h2.H2CrashRepair.Chunk;
import dev.hourglass.node.store.h2.H2CrashRepair.Kind;
import dev.hourglass.node.store.h2.H2CrashRepair.Tail;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link H2CrashRepair} on real H2 files. A kill -9 is imitated by copying the database file
 * between two commits: with {@code WRITE_DELAY=0} each commit has written its chunk before it
 * returns and nothing is written between commits, so the copy is exactly what a process killed
 * at that moment leaves behind. {@code RETENTION_TIME=0} lets H2 reuse freed space at once, which
 * makes the broken chunk chain (see the class under test) come up within a few hundred commits
 * instead of after the 45 s of the default.
 */
class H2CrashRepairTest {
    static final int MAX_COMMITS = 20_000;
    /** Crash moments to check, looked for at most every {@link #SPREAD} commits after the first. */
    static final int CRASH_IMAGES = 5;

    static final int SPREAD = 50;

    @TempDir
    Path dir;

    @Test
    void aCrashRightAfterTheChunkChainBrokeLosesNoCommittedRow() throws Exception {
        Path live = dir.resolve("live");
        Map<Path, Set<Long>> crashImages = new LinkedHashMap<>(); // copy -> rows committed at that moment
        Set<Long> committed = new HashSet<>();
        int commits = 0;
        try (Connection c = DriverManager.getConnection(url(live), "sa", "")) {
            c.createStatement().execute("CREATE TABLE t (id BIGINT PRIMARY KEY, pad VARCHAR(20000))");
            c.setAutoCommit(false);
            Random random = new Random(7);
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO t VALUES (?, ?)");
                    PreparedStatement delete = c.prepareStatement("DELETE FROM t WHERE id = ?")) {
                for (long id = 1; id <= MAX_COMMITS && crashImages.size() < CRASH_IMAGES; id++) {
                    insert.setLong(1, id);
                    insert.setString(2, "x".repeat(random.nextInt(12_000))); // chunks of varying size
                    insert.executeUpdate();
                    if (id > 40) {
                        delete.setLong(1, id - 40); // frees older chunks: holes to write into
                        delete.executeUpdate();
                        committed.remove(id - 40);
                    }
                    c.commit();
                    committed.add(id);
                    commits++;
                    if (commits % SPREAD == 0 || crashImages.isEmpty()) {
                        if (chainBrokenAfterHeader(file(live))) {
                            Path image = dir.resolve("crashed-after-" + commits);
                            Files.copy(file(live), file(image));
                            crashImages.put(image, new HashSet<>(committed));
                        }
                    }
                }
            }
        }
        assertThat(crashImages)
                .as("commits out of %d that left chunks H2 cannot reach from its header", commits)
                .hasSize(CRASH_IMAGES);

        SoftAssertions softly = new SoftAssertions();
        int lostWithoutRepair = 0;
        for (Map.Entry<Path, Set<Long>> image : crashImages.entrySet()) {
            // the control: H2 alone, on a copy of the same image (its own search sometimes finds
            // the newest chunk anyway, so not on every image)
            Path unrepaired = dir.resolve(image.getKey().getFileName() + "-unrepaired");
            Files.copy(file(image.getKey()), file(unrepaired));
            if (!rowsOf(unrepaired).equals(image.getValue())) {
                lostWithoutRepair++;
            }

            H2CrashRepair.Outcome outcome = H2CrashRepair.repair(file(image.getKey()));

            softly.assertThat(outcome.kind()).as(outcome.toString()).isEqualTo(Kind.REPAIRED);
            softly.assertThat(rowsOf(image.getKey()))
                    .as(
                            "rows after reopening %s, the file of a process killed then",
                            image.getKey().getFileName())
                    .containsExactlyInAnyOrderElementsOf(image.getValue());
        }
        softly.assertThat(lostWithoutRepair)
                .as("crash images on which H2 alone loses committed rows (the defect is there to repair)")
                .isPositive();
        softly.assertAll();
    }

    @Test
    void aCleanlyClosedFileIsLeftAsItIs() throws Exception {
        Path db = dir.resolve("clean");
        try (Connection c = DriverManager.getConnection(url(db), "sa", "")) {
            c.createStatement().execute("CREATE TABLE t (id BIGINT PRIMARY KEY, pad VARCHAR(100))");
            c.createStatement().execute("INSERT INTO t VALUES (1, 'a')");
        }
        byte[] before = Files.readAllBytes(file(db));

        assertThat(H2CrashRepair.repair(file(db)).kind()).isEqualTo(Kind.CLEAN);

        assertThat(Files.readAllBytes(file(db))).isEqualTo(before);
        assertThat(rowsOf(db)).containsExactly(1L);
    }

    @Test
    void aFileH2HasOpenIsNotTouched() throws Exception {
        Path db = dir.resolve("open");
        try (Connection c = DriverManager.getConnection(url(db), "sa", "")) {
            c.createStatement().execute("CREATE TABLE t (id BIGINT PRIMARY KEY, pad VARCHAR(100))");

            assertThat(H2CrashRepair.repair(file(db)).kind()).isEqualTo(Kind.SKIPPED);
        }
    }

    @Test
    void noFileNoRepair() {
        assertThat(H2CrashRepair.repair(dir.resolve("none.mv.db")).kind()).isEqualTo(Kind.NO_FILE);
    }

    /**
     * The defect's state: chunks were written after the header's chunk, the header chunk's guess
     * of where the next one would go was wrong, and the newest is not the one at the end of the
     * file (which H2 would find by looking there).
     */
    private static boolean chainBrokenAfterHeader(Path file) throws Exception {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            Map<String, String> header = H2CrashRepair.readHeader(channel);
            Tail tail = header == null ? null : H2CrashRepair.tail(channel, header);
            if (tail == null || tail.successors().isEmpty()) {
                return false;
            }
            Chunk first = tail.successors().get(0);
            Chunk newest = tail.successors().get(tail.successors().size() - 1);
            boolean newestEndsTheFile = (newest.block() + newest.len()) * H2CrashRepair.BLOCK >= channel.size();
            return tail.headerChunk().next() != first.block() && !newestEndsTheFile;
        }
    }

    private static Set<Long> rowsOf(Path db) throws SQLException {
        Set<Long> ids = new HashSet<>();
        try (Connection c = DriverManager.getConnection(url(db), "sa", "");
                ResultSet r = c.createStatement().executeQuery("SELECT id FROM t")) {
            while (r.next()) {
                ids.add(r.getLong(1));
            }
        }
        return ids;
    }

    private static String url(Path db) {
        return "jdbc:h2:file:" + db.toAbsolutePath() + ";WRITE_DELAY=0;RETENTION_TIME=0;DB_CLOSE_ON_EXIT=FALSE";
    }

    private static Path file(Path db) {
        return db.resolveSibling(db.getFileName() + ".mv.db");
    }
}
