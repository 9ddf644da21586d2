package dev.hourglass.sdk.pull;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hourglass.api.CallbackStatus;
import dev.hourglass.api.ErrorCode;
import dev.hourglass.api.HourglassException;
import dev.hourglass.api.JobState;
import dev.hourglass.api.Reservation;
import dev.hourglass.api.ReserveRequest;
import dev.hourglass.api.ResultAnswer;
import dev.hourglass.api.ResultReport;
import dev.hourglass.sdk.HourglassClient;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The pull calls of {@link HourglassClient} against {@link FakeHourglass}: what is sent, what is read. */
class HourglassClientPullTest {
    private FakeHourglass hourglass;
    private HourglassClient client;

    @BeforeEach
    void startNode() throws Exception {
        hourglass = FakeHourglass.start();
        client = HourglassClient.create(hourglass.baseUrl(), FakeHourglass.TOKEN);
    }

    @AfterEach
    void stopNode() throws Exception {
        hourglass.close();
    }

    @Test
    void reservesInServiceOrderAndReadsTheReservation() {
        String low = hourglass.addJob("low", "{\"n\":1}");
        String high = hourglass.addJob("high", "{\"n\":2}");

        List<Reservation> reserved = client.reserve(new ReserveRequest()
                .setServices(List.of("high", "low"))
                .setMax(1)
                .setTtrMs(2_000L));

        assertThat(reserved).singleElement().satisfies(r -> {
            assertThat(r.getId()).isEqualTo(high);
            assertThat(r.getAttempt()).isEqualTo(1);
            assertThat(r.getDeadline()).isAfter(r.getCreatedAt());
            assertThat(r.getPayload()).isEqualTo("{\"n\":2}");
            assertThat(r.getShard()).isEqualTo(3);
        });
        assertThat(hourglass.reserveBodies().get(0).toString())
                .isEqualTo("{\"services\":[\"high\",\"low\"],\"max\":1,\"ttrMs\":2000}");
        assertThat(hourglass.state(low)).isEqualTo(JobState.DELAYED);
    }

    @Test
    void aLongPollWithNothingReadyAnswersEmptyAfterItsWait() {
        long start = System.nanoTime();

        List<Reservation> reserved =
                client.reserve(new ReserveRequest().setServices(List.of("none")).setWaitMs(200L));

        assertThat(reserved).isEmpty();
        assertThat((System.nanoTime() - start) / 1_000_000).isGreaterThanOrEqualTo(200);
    }

    @Test
    void answersEachResultOfABatchInOrder() {
        String id = hourglass.addJob("s", "{}");
        Reservation r =
                client.reserve(new ReserveRequest().setServices(List.of("s"))).get(0);

        List<ResultAnswer> answers = client.reportResults(List.of(
                new ResultReport().setJobId(id).setAttempt(r.getAttempt()).setStatus(CallbackStatus.SUCCESS),
                new ResultReport().setJobId(id).setAttempt(9).setStatus(CallbackStatus.FAIL)));

        assertThat(answers).hasSize(2);
        assertThat(answers.get(0).isAccepted()).isTrue();
        assertThat(answers.get(0).getJobId()).isEqualTo(id);
        assertThat(answers.get(0).getState()).isEqualTo(JobState.FINISHED);
        assertThat(answers.get(1).isAccepted()).isFalse();
        assertThat(answers.get(1).getAttempt()).isEqualTo(9);
        assertThat(answers.get(1).getErrorCode()).isEqualTo(ErrorCode.CONFLICT);
        assertThat(answers.get(1).getErrorField()).isEqualTo("attempt");
        assertThat(hourglass.resultPosts().get(0).get(0).sent().toString())
                .isEqualTo("{\"jobId\":\"" + id + "\",\"attempt\":1,\"status\":\"SUCCESS\"}");
    }

    @Test
    void touchMovesTheDeadlineAndIsRefusedForAStaleAttempt() {
        String id = hourglass.addJob("s", "{}");
        Reservation r = client.reserve(
                        new ReserveRequest().setServices(List.of("s")).setTtrMs(1_000L))
                .get(0);

        Reservation touched = client.touch(id, r.getAttempt(), 60_000);

        assertThat(touched.getDeadline()).isAfter(r.getDeadline().plusSeconds(50));
        assertThatThrownBy(() -> client.touch(id, r.getAttempt() + 1, 60_000))
                .isInstanceOfSatisfying(HourglassException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.CONFLICT);
                    assertThat(e.field()).isEqualTo("attempt");
                });
    }

    @Test
    void aSingleReleaseCarriesItsDelay() {
        String id = hourglass.addJob("s", "{}");
        Reservation r =
                client.reserve(new ReserveRequest().setServices(List.of("s"))).get(0);

        client.reportResult(
                id,
                new ResultReport()
                        .setAttempt(r.getAttempt())
                        .setStatus(CallbackStatus.RELEASE)
                        .setDelayMs(5_000L));

        assertThat(hourglass.results(id)).singleElement().satisfies(result -> {
            assertThat(result.sent().path("status").asText()).isEqualTo("RELEASE");
            assertThat(result.sent().path("delayMs").asLong()).isEqualTo(5_000);
            assertThat(result.accepted()).isTrue();
        });
        assertThat(hourglass.readyCount())
                .as("released with a delay: not ready yet")
                .isZero();
    }
}
