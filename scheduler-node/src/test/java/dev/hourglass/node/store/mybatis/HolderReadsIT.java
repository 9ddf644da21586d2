package dev.hourglass.node.store.mybatis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.api.JobState;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.testing.RunsAlongside;
import dev.hourglass.node.testing.TestNodes;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.ibatis.session.SqlSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The read of a taken bizKey's holder is tried again when the holder is in neither table (it moved
 * between them between the two reads). MyBatis answers a statement it has already run in a session
 * from that session's cache, so a read again must clear it, or it never reaches the database.
 */
@RunsAlongside
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HolderReadsIT {
    private Database db;

    @BeforeAll
    void open() {
        db = new Database(
                dev.hourglass.node.store.h2.StandaloneH2.url(TestNodes.tempDir().resolve("holders")), "sa", "", 4);
    }

    @AfterAll
    void close() {
        db.close();
    }

    @Test
    void aHolderCommittedBetweenTwoReadsOfOneSessionIsFoundByTheSecond() {
        long id = 4_242_000L + System.nanoTime() % 1_000;
        try (SqlSession s = db.sessions().openSession(false)) {
            assertThat(MyBatisJobRepository.readByIds(s, Set.of(id)))
                    .as("not stored yet")
                    .isEmpty();
            new MyBatisJobRepository(db.sessions(), new SqlFailures()).insertAll(List.of(job(id)));
            assertThat(MyBatisJobRepository.readByIds(s, Set.of(id)))
                    .as("stored by another transaction since the first read, in the same session")
                    .containsOnlyKeys(id);
        }
    }

    private static Job job(long id) {
        return new Job(
                id,
                "holders",
                "svc",
                "key-" + id,
                0,
                JobState.DELAYED,
                1_000,
                1_000,
                null,
                0,
                0,
                3,
                1_000,
                null,
                "{}",
                Map.of(),
                null,
                null,
                0,
                1_000,
                1_000);
    }
}
