package dev.hourglass.node.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hourglass.node.testing.ApiClient.Answer;
import dev.hourglass.node.testing.CallbackReceiver.Received;
import dev.hourglass.node.testing.NodeFixture;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Schedules over the HTTP API (docs/api.md, "Schedules"), the same scenarios on every store: a
 * real node, a real HTTP receiver, jobs fired at their occurrences. One node per class; each test
 * has its own service and schedule names, so tests see only their own jobs.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ScheduleContract {
    static final ObjectMapper JSON = new ObjectMapper();

    NodeFixture f;
    String service;

    protected abstract NodeFixture start() throws Exception;

    @BeforeAll
    void startNode() throws Exception {
        f = start();
    }

    @BeforeEach
    void newService() {
        service = f.httpService("");
    }

    @AfterAll
    void stopNode() {
        if (f != null) {
            f.close();
        }
    }

    /** The deliveries of a schedule's jobs, by occurrence (epoch ms), the first attempt of each. */
    Map<Long, Received> deliveriesOf(String schedule) {
        Map<Long, Received> byOccurrence = new TreeMap<>();
        for (Received r : f.receiver.received()) {
            JsonNode body = json(r.body());
            JsonNode attributes = body.get("attributes");
            if (attributes != null
                    && schedule.equals(attributes.path("hourglass-schedule").asText())) {
                long occurrence =
                        Long.parseLong(attributes.get("hourglass-occurrence").asText());
                Received earlier = byOccurrence.put(occurrence, r);
                assertThat(earlier)
                        .as("occurrence %d delivered twice", occurrence)
                        .isNull();
            }
        }
        return byOccurrence;
    }

    static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    Answer put(String name, String body) {
        return f.app.put("/api/v1/schedules/" + name, body);
    }

    @Test
    void aPerSecondScheduleSubmitsOneJobPerOccurrenceEachOnTimeAndNoneEarly() {
        Answer a = put("tick", "{\"service\":\"" + service + "\",\"every\":\"PT1S\",\"payload\":{\"k\":1}}");
        assertThat(a.status()).as(a.text()).isEqualTo(200);
        long generation = a.json().get("generation").asLong();
        assertThat(a.json().get("nextFireTimes")).hasSize(5);

        await().atMost(Duration.ofSeconds(20)).until(() -> deliveriesOf("tick").size() >= 3);
        Map<Long, Received> delivered = deliveriesOf("tick");
        List<Long> occurrences = new ArrayList<>(delivered.keySet());
        for (int i = 1; i < occurrences.size(); i++) {
            assertThat(occurrences.get(i) - occurrences.get(i - 1))
                    .as("occurrences one second apart, none skipped")
                    .isEqualTo(1_000);
        }
        for (Map.Entry<Long, Received> e : delivered.entrySet()) {
            JsonNode body = json(e.getValue().body());
            assertThat(body.get("bizKey").asText()).isEqualTo("sched:tick:" + generation + ":" + e.getKey());
            assertThat(e.getValue().at()).as("not before its occurrence").isGreaterThanOrEqualTo(e.getKey());
        }
        JsonNode searched =
                f.app.get("/api/v1/jobs?schedule=tick&limit=500").json().get("items");
        assertThat(searched).hasSizeGreaterThanOrEqualTo(delivered.size());
        searched.forEach(j -> assertThat(j.get("bizKey").asText()).startsWith("sched:tick:"));
        assertThat(f.app.get("/api/v1/jobs?schedule=Tick!").errorField()).isEqualTo("schedule");
        // the read shows the last occurrence that came (jobs are submitted up to 30 s ahead: not the
        // one submitted last) and the next ones
        long readAt = System.currentTimeMillis();
        JsonNode read = f.app.get("/api/v1/schedules/tick").json();
        JsonNode last = read.get("lastOccurrence");
        long lastAt = NodeFixture.epochMs(last.get("time"));
        assertThat(lastAt).as("came, and is the last to have come").isBetween(readAt - 2_000, readAt + 1_000);
        JsonNode lastJob = f.job(last.get("jobId").asText());
        assertThat(lastJob.get("bizKey").asText()).isEqualTo("sched:tick:" + generation + ":" + lastAt);
        assertThat(last.get("state").asText()).isIn("DELAYED", "RUNNING", "FINISHED"); // it may move on
        assertThat(NodeFixture.epochMs(read.get("nextFireTimes").get(0))).isGreaterThan(System.currentTimeMillis() - 1);

        // deleted: its submitted jobs that have not fired are canceled, and nothing more arrives
        assertThat(f.app.delete("/api/v1/schedules/tick").status()).isEqualTo(204);
        assertThat(f.app.get("/api/v1/schedules/tick").status()).isEqualTo(404);
        int afterDelete = deliveriesOf("tick").size();
        JsonNode live = f.app.get("/api/v1/jobs?state=DELAYED&service=" + service)
                .json()
                .get("items");
        assertThat(live).as("no DELAYED job of the schedule left").isEmpty();
        await().during(Duration.ofMillis(2_500))
                .atMost(Duration.ofSeconds(5))
                .until(() -> deliveriesOf("tick").size() <= afterDelete + 1); // one may have been under way
    }

    @Test
    void aCronScheduleReadsWithItsNextFireTimesInItsZone() {
        Answer a = put(
                "report",
                "{\"service\":\"" + service + "\",\"cron\":\"0 30 9 * * MON-FRI\",\"timeZone\":\"Asia/Shanghai\"}");
        assertThat(a.status()).as(a.text()).isEqualTo(200);
        JsonNode next = a.json().get("nextFireTimes");
        assertThat(next).hasSize(5);
        long previous = 0;
        for (JsonNode t : next) {
            Instant at = Instant.parse(t.asText());
            assertThat(at.toString()).endsWith("T01:30:00Z"); // 09:30 in Shanghai
            assertThat(at.atZone(java.time.ZoneId.of("Asia/Shanghai"))
                            .getDayOfWeek()
                            .getValue())
                    .isLessThan(6);
            assertThat(at.toEpochMilli()).isGreaterThan(previous);
            previous = at.toEpochMilli();
        }
        assertThat(a.json().get("misfire").asText()).isEqualTo("FIRE_ONCE");
        assertThat(a.json().get("overlap").asText()).isEqualTo("ALLOW");
        // the next occurrence is submitted already: at least the next one, always
        JsonNode jobs = f.app.get("/api/v1/jobs?state=DELAYED&service=" + service)
                .json()
                .get("items");
        assertThat(jobs).hasSize(1);
        assertThat(NodeFixture.epochMs(jobs.get(0).get("fireAt")))
                .isEqualTo(Instant.parse(next.get(0).asText()).toEpochMilli());
        // submitted, but to come: no occurrence has come yet (it showed the submitted one until 2026-11-28)
        assertThat(f.app.get("/api/v1/schedules/report")
                        .json()
                        .get("lastOccurrence")
                        .isNull())
                .isTrue();
        List<String> listed = new ArrayList<>();
        f.app.get("/api/v1/schedules")
                .json()
                .get("items")
                .forEach(i -> listed.add(i.get("name").asText()));
        assertThat(listed).contains("report").isSorted();
    }

    /**
     * A replace keeps the creation time, from which an interval without startAt counts: the same
     * body PUT again fires nothing at once and leaves the series where it was (until 2026-11-28
     * each replace re-anchored it at the replace, with a job at once). A schedule read is accepted
     * back as it is.
     */
    @Test
    void aReplaceKeepsTheIntervalsAnchorAndAScheduleReadIsAcceptedBack() throws Exception {
        String body = "{\"service\":\"" + service + "\",\"every\":\"PT1M\"}";
        Answer first = put("anchored", body);
        assertThat(first.status()).as(first.text()).isEqualTo(200);
        long created = NodeFixture.epochMs(first.json().get("createdAt"));
        Thread.sleep(1_500);
        Answer again = put("anchored", body);
        assertThat(again.status()).as(again.text()).isEqualTo(200);
        assertThat(NodeFixture.epochMs(again.json().get("createdAt"))).isEqualTo(created);
        again.json().get("nextFireTimes").forEach(t -> assertThat((NodeFixture.epochMs(t) - created) % 60_000)
                .as("on the first PUT's minute grid: " + t)
                .isZero());
        JsonNode jobs =
                f.app.get("/api/v1/jobs?schedule=anchored&limit=100").json().get("items");
        assertThat(jobs).isNotEmpty();
        jobs.forEach(j -> assertThat((NodeFixture.epochMs(j.get("fireAt")) - created) % 60_000)
                .as("no occurrence at the second PUT: " + j)
                .isZero());
        Answer readBack =
                put("anchored", f.app.get("/api/v1/schedules/anchored").text());
        assertThat(readBack.status()).as(readBack.text()).isEqualTo(200);
    }

    @Test
    void badInputIsA400NamingTheFieldAndStoresNothing() {
        String s = "\"service\":\"" + service + "\"";
        Map<String, String> cases = new HashMap<>();
        cases.put("{" + s + "}", "cron");
        cases.put("{" + s + ",\"cron\":\"0 0 * *\"}", "cron");
        cases.put("{" + s + ",\"cron\":\"0 0 0 30 2 *\"}", "cron"); // never fires
        cases.put("{" + s + ",\"cron\":\"0 0 * * * *\",\"every\":\"PT1M\"}", "every");
        cases.put("{" + s + ",\"every\":\"PT0.5S\"}", "every");
        cases.put("{" + s + ",\"every\":\"soon\"}", "every");
        cases.put("{" + s + ",\"every\":\"PT1M\",\"timeZone\":\"Mars/Olympus\"}", "timeZone");
        cases.put("{" + s + ",\"every\":\"PT1M\",\"timeZone\":\"EST\"}", "timeZone");
        cases.put("{" + s + ",\"every\":\"PT1M\",\"timeZone\":\"+08:00\"}", "timeZone");
        cases.put(
                "{" + s
                        + ",\"every\":\"PT1M\",\"startAt\":\"2030-01-02T00:00:00Z\",\"endAt\":\"2030-01-01T00:00:00Z\"}",
                "endAt");
        cases.put("{" + s + ",\"every\":\"PT1M\",\"misfire\":\"LATER\"}", "misfire");
        cases.put("{" + s + ",\"every\":\"PT1M\",\"overlap\":\"NEVER\"}", "overlap");
        cases.put("{" + s + ",\"every\":\"PT1M\",\"catchUpWindowMs\":-1}", "catchUpWindowMs");
        cases.put("{\"service\":\"nope\",\"every\":\"PT1M\"}", "service");
        cases.put("{" + s + ",\"every\":\"PT1M\",\"attributes\":{\"hourglass-x\":\"1\"}}", "attributes");
        cases.put("{" + s + ",\"every\":\"PT1M\",\"maxAttempts\":0}", "maxAttempts");
        // valid, but longer than a schedule's cron may be (it was a 500 from the database)
        StringBuilder everySecond = new StringBuilder("0");
        for (int i = 1; i < 60; i++) {
            everySecond.append(',').append(i);
        }
        cases.put("{" + s + ",\"cron\":\"" + everySecond + " " + everySecond + " * * * *\"}", "cron");
        // windows with no occurrence left
        cases.put("{" + s + ",\"every\":\"PT1M\",\"endAt\":\"2020-01-01T00:00:00Z\"}", "endAt");
        cases.put(
                "{" + s + ",\"cron\":\"0 0 0 1 1 *\",\"endAt\":\""
                        + java.time.Instant.now().plus(Duration.ofDays(1)) + "\"}",
                "endAt");
        for (Map.Entry<String, String> c : cases.entrySet()) {
            Answer a = put("bad", c.getKey());
            assertThat(a.status()).as(c.getKey() + " → " + a.text()).isEqualTo(400);
            assertThat(a.errorField()).as(c.getKey() + " → " + a.text()).isEqualTo(c.getValue());
        }
        assertThat(put("BadName", "{" + s + ",\"every\":\"PT1M\"}").status()).isEqualTo(400);
        assertThat(f.app.get("/api/v1/schedules/bad").status()).isEqualTo(404);
        assertThat(f.app.get("/api/v1/jobs?service=" + service).json().get("items"))
                .isEmpty();
    }

    @Test
    void clientsMayNotUseTheBizKeysAndAttributesHourglassGivesItsJobs() {
        for (String extra : List.of(
                "\"bizKey\":\"sched:x:1:1\"",
                "\"bizKey\":\"dlq:1:1\"",
                "\"attributes\":{\"hourglass-schedule\":\"x\"}")) {
            Answer a = f.app.post(
                    "/api/v1/jobs", "{\"service\":\"" + service + "\",\"delayMs\":60000,\"payload\":{}," + extra + "}");
            assertThat(a.status()).as(extra + " → " + a.text()).isEqualTo(400);
            assertThat(a.errorField()).isIn("bizKey", "attributes");
        }
    }

    @Test
    void pauseCancelsWhatHasNotFiredAndResumeDoesNotCatchUpTheTimePaused() {
        assertThat(put("beat", "{\"service\":\"" + service + "\",\"every\":\"PT1S\"}")
                        .status())
                .isEqualTo(200);
        await().atMost(Duration.ofSeconds(15)).until(() -> deliveriesOf("beat").size() >= 2);
        Answer paused = f.app.post("/api/v1/schedules/beat/pause", "");
        assertThat(paused.status()).as(paused.text()).isEqualTo(200);
        assertThat(paused.json().get("paused").asBoolean()).isTrue();
        long pausedAt = System.currentTimeMillis();
        assertThat(f.app.get("/api/v1/jobs?state=DELAYED&service=" + service)
                        .json()
                        .get("items"))
                .as("nothing left to fire while paused")
                .isEmpty();
        // two occurrences while paused: none comes, now or after the resume
        await().during(Duration.ofSeconds(2))
                .atMost(Duration.ofSeconds(4))
                .until(() -> deliveriesOf("beat").keySet().stream().noneMatch(o -> o > pausedAt + 1_000));
        Answer resumed = f.app.post("/api/v1/schedules/beat/resume", "");
        assertThat(resumed.status()).as(resumed.text()).isEqualTo(200);
        long resumedAt = System.currentTimeMillis();
        assertThat(resumed.json().get("paused").asBoolean()).isFalse();
        await().atMost(Duration.ofSeconds(15))
                .until(() -> deliveriesOf("beat").keySet().stream().anyMatch(o -> o > resumedAt));
        Set<Long> occurrences = deliveriesOf("beat").keySet();
        assertThat(occurrences)
                .as("no occurrence of the time paused (%d..%d)", pausedAt + 1_000, resumedAt - 1_000)
                .noneMatch(o -> o > pausedAt + 1_000 && o < resumedAt - 1_000);
    }

    @Test
    void aReplaceStartsANewGenerationAndCancelsTheOldOnesJobs() {
        Answer first = put("daily", "{\"service\":\"" + service + "\",\"cron\":\"0 0 3 * * *\"}");
        long g1 = first.json().get("generation").asLong();
        Answer second =
                put("daily", "{\"service\":\"" + service + "\",\"cron\":\"0 0 4 * * *\",\"payload\":{\"v\":2}}");
        assertThat(second.status()).as(second.text()).isEqualTo(200);
        long g2 = second.json().get("generation").asLong();
        assertThat(g2).isGreaterThan(g1);
        JsonNode live = f.app.get("/api/v1/jobs?state=DELAYED&service=" + service)
                .json()
                .get("items");
        assertThat(live).hasSize(1);
        assertThat(live.get(0).get("bizKey").asText()).startsWith("sched:daily:" + g2 + ":");
        assertThat(f.app.get("/api/v1/jobs?state=CANCELED&service=" + service)
                        .json()
                        .get("items"))
                .hasSize(1);
    }

    @Test
    void triggerSubmitsOneJobNowAndItsBizKeyMakesARetryOfTheCallSafe() {
        put("manual", "{\"service\":\"" + service + "\",\"cron\":\"0 0 3 1 1 *\",\"payload\":{\"m\":1}}");
        Answer a = f.app.post("/api/v1/schedules/manual/trigger", "{\"bizKey\":\"run-1\"}");
        assertThat(a.status()).as(a.text()).isEqualTo(201);
        Answer again = f.app.post("/api/v1/schedules/manual/trigger", "{\"bizKey\":\"run-1\"}");
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.json().get("id").asText()).isEqualTo(a.json().get("id").asText());
        String id = a.json().get("id").asText();
        await().atMost(Duration.ofSeconds(10)).until(() -> f.state(id).equals("FINISHED"));
        assertThat(f.app.post("/api/v1/schedules/none/trigger", "").status()).isEqualTo(404);
    }

    @Test
    void pausingOneScheduleLeavesTheJobsOfAnotherWhoseNameItsNameMatchesAsAPattern() {
        // "_" is a one-character wildcard in SQL's LIKE: a_b must not reach axb's jobs
        assertThat(put("a_b", "{\"service\":\"" + service + "\",\"cron\":\"0 0 3 * * *\"}")
                        .status())
                .isEqualTo(200);
        assertThat(put("axb", "{\"service\":\"" + service + "\",\"cron\":\"0 0 3 * * *\"}")
                        .status())
                .isEqualTo(200);
        assertThat(f.app.post("/api/v1/schedules/a_b/pause", "").status()).isEqualTo(200);
        assertThat(f.app.get("/api/v1/jobs?schedule=axb&state=DELAYED").json().get("items"))
                .hasSize(1);
        assertThat(f.app.get("/api/v1/jobs?schedule=a_b&state=DELAYED").json().get("items"))
                .isEmpty();
        assertThat(f.app.delete("/api/v1/schedules/a_b").status()).isEqualTo(204);
        assertThat(f.app.get("/api/v1/jobs?schedule=axb&state=DELAYED").json().get("items"))
                .hasSize(1);
    }

    @Test
    void aScheduleCreatedPausedAndPutAgainUnpausedSubmitsItsOccurrences() {
        Answer held = put("held", "{\"service\":\"" + service + "\",\"every\":\"PT1S\",\"paused\":true}");
        assertThat(held.json().get("paused").asBoolean()).isTrue();
        assertThat(f.app.get("/api/v1/jobs?schedule=held").json().get("items")).isEmpty();
        Answer going = put("held", "{\"service\":\"" + service + "\",\"every\":\"PT1S\",\"paused\":false}");
        assertThat(going.json().get("paused").asBoolean()).as(going.text()).isFalse();
        assertThat(f.app.get("/api/v1/jobs?schedule=held&state=DELAYED")
                        .json()
                        .get("items")
                        .size())
                .as("the occurrences of the next 30 s, submitted by the put's pass")
                .isGreaterThanOrEqualTo(29);
        assertThat(f.app.delete("/api/v1/schedules/held").status()).isEqualTo(204);
    }
}
