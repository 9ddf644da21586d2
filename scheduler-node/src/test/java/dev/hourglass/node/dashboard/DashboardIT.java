package dev.hourglass.node.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hourglass.node.testing.ApiClient;
import dev.hourglass.node.testing.CallbackReceiver;
import dev.hourglass.node.testing.CallbackReceiver.Reply;
import dev.hourglass.node.testing.InProcessCluster;
import dev.hourglass.node.testing.RunsPaired;
import dev.hourglass.node.testing.TestNodes;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The dashboard in a real browser (Debian's headless Chromium, driven by Selenium) against a real
 * node on MariaDB: sign-in, the cluster and its live charts, services (health and an edit), job
 * search and each intervention on one job, bulk actions with their confirmation and audit, and
 * alerts with their acknowledgement. Every intervention is checked in the database itself, not
 * in the page. Screenshots of the main screens go to {@code target/dashboard-screenshots/}.
 */
@RunsPaired
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DashboardIT {
    private static final Path SCREENSHOTS = Path.of("target", "dashboard-screenshots");

    InProcessCluster cluster;
    CallbackReceiver receiver;
    ApiClient admin;
    ApiClient shop;
    ApiClient other;
    ChromeDriver browser;
    WebDriverWait wait;
    Path profile;

    /** Set to {@value #REQUIRED} by .ci/run, which installs the browser: the tests may not skip then. */
    static final String BROWSER_TESTS = "HOURGLASS_BROWSER_TESTS";

    static final String REQUIRED = "required";

    @BeforeAll
    void start() throws Exception {
        File chromedriver = new File("/usr/bin/chromedriver");
        boolean browserHere = chromedriver.canExecute() && new File("/usr/bin/chromium").canExecute();
        String missing = "the dashboard's browser tests need Debian's chromium and chromium-driver"
                + " (apt-get install -y chromium chromium-driver); .ci/run installs them";
        if (REQUIRED.equals(System.getenv(BROWSER_TESTS))) {
            // CI says the browser is there: a missing one is a failure, never a silent skip
            assertThat(browserHere)
                    .as(missing + ", and " + BROWSER_TESTS + "=" + REQUIRED)
                    .isTrue();
        }
        if (!browserHere) {
            // in the build's log, not only in the report: failsafe prints a skip without its reason
            System.err.println("DashboardIT skipped: " + missing);
        }
        assumeTrue(browserHere, "skipped: " + missing);
        receiver = new CallbackReceiver();
        // the "flaky" service's receiver refuses for good: its jobs end FAILED and raise an alert
        receiver.respond(r -> r.body().contains("\"service\":\"flaky\"") ? Reply.status(410) : Reply.ok());
        cluster = InProcessCluster.start(1, (i, c) -> {
            c.dubbo.enabled = false;
            c.alerts.evaluateEveryMs = 300;
        });
        admin = cluster.admin();
        shop = cluster.newApp("shop");
        other = cluster.newApp("other");
        putService(shop, "close", "");
        putService(shop, "flaky", ",\"alert\":{\"failures\":2,\"windowSeconds\":600}");
        putService(other, "mail", "");

        profile = Files.createTempDirectory("hourglass-chromium");
        ChromeOptions options = new ChromeOptions();
        options.setBinary("/usr/bin/chromium");
        options.addArguments(
                "--headless=new",
                "--no-sandbox", // as root
                "--disable-gpu",
                "--window-size=1400,1000",
                "--no-first-run",
                // the machine has no network: without these Chromium keeps trying Google's hosts
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-quic",
                "--user-data-dir=" + profile);
        browser = new ChromeDriver(
                new ChromeDriverService.Builder()
                        .usingDriverExecutable(chromedriver)
                        .build(),
                options);
        // the page rebuilds its tables on every refresh: an element read during one is stale, read again
        wait = new WebDriverWait(browser, Duration.ofSeconds(15));
        wait.ignoring(StaleElementReferenceException.class);
        Files.createDirectories(SCREENSHOTS);
    }

    @AfterAll
    void stop() throws Exception {
        if (browser != null) {
            browser.quit();
        }
        if (cluster != null) {
            cluster.close();
        }
        if (receiver != null) {
            receiver.close();
        }
        if (profile != null) {
            try (Stream<Path> files = Files.walk(profile)) {
                files.sorted(java.util.Comparator.reverseOrder())
                        .forEach(p -> p.toFile().delete());
            }
        }
    }

    @BeforeEach
    void freshPage() {
        browser.get(cluster.nodes().get(0).baseUrl() + "/");
        browser.executeScript("sessionStorage.clear()");
        browser.navigate().refresh();
    }

    private void putService(ApiClient app, String name, String extra) {
        assertThat(app.put(
                                "/api/v1/services/" + name,
                                "{\"protocol\":\"HTTP\",\"url\":\"" + receiver.url() + "\",\"maxAttempts\":1" + extra
                                        + "}")
                        .status())
                .isEqualTo(200);
    }

    // ---- page helpers ----

    private void signIn(String token) {
        WebElement input = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("token")));
        input.clear();
        input.sendKeys(token);
        browser.findElement(By.id("signin")).click();
    }

    /** After a sign-in the navigation shows once the node has answered for the token: wait for it. */
    private void go(String view) {
        wait.until(ExpectedConditions.elementToBeClickable(By.cssSelector("#nav a[data-view=" + view + "]")))
                .click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("view-" + view)));
    }

    private WebElement byId(String id) {
        return browser.findElement(By.id(id));
    }

    private void type(String id, String text) {
        WebElement e = byId(id);
        e.clear();
        e.sendKeys(text);
    }

    /** Sets a datetime-local input (typing into one depends on the browser's locale). */
    private void setLocalTime(String id, String local) {
        browser.executeScript("arguments[0].value = arguments[1]", byId(id), local);
    }

    /** The instant the browser means by a local time (its time zone is the machine's). */
    private Instant browserInstant(String local) {
        return Instant.parse((String) browser.executeScript("return new Date(arguments[0]).toISOString()", local));
    }

    /** Waits for the banner's success message ({@code notice}) or error ({@code problem}) to say {@code text}. */
    private void banner(String kind, String text) {
        wait.ignoring(StaleElementReferenceException.class)
                .until(d -> d.findElement(By.id("banner")).findElements(By.id(kind)).stream()
                        .anyMatch(e -> e.getText().contains(text)));
    }

    private void screenshot(String name) throws Exception {
        Files.write(SCREENSHOTS.resolve(name + ".png"), browser.getScreenshotAs(OutputType.BYTES));
    }

    // ---- the database, read directly ----

    private String stateInDatabase(String jobId) throws Exception {
        try (Connection c = DriverManager.getConnection(cluster.jdbcUrl(), "root", "");
                PreparedStatement s = c.prepareStatement("SELECT state FROM job_delay_task WHERE id = ? UNION ALL"
                        + " SELECT state FROM job_delay_task_backlog WHERE id = ?")) {
            s.setLong(1, Long.parseLong(jobId));
            s.setLong(2, Long.parseLong(jobId));
            try (ResultSet r = s.executeQuery()) {
                assertThat(r.next()).as("job " + jobId + " in the database").isTrue();
                return r.getString(1);
            }
        }
    }

    private long fireAtInDatabase(String jobId) throws Exception {
        try (Connection c = DriverManager.getConnection(cluster.jdbcUrl(), "root", "");
                PreparedStatement s = c.prepareStatement("SELECT fire_at FROM job_delay_task WHERE id = ?")) {
            s.setLong(1, Long.parseLong(jobId));
            try (ResultSet r = s.executeQuery()) {
                assertThat(r.next()).isTrue();
                return r.getLong(1);
            }
        }
    }

    private int executionsInDatabase(String jobId) throws Exception {
        try (Connection c = DriverManager.getConnection(cluster.jdbcUrl(), "root", "");
                PreparedStatement s =
                        c.prepareStatement("SELECT COUNT(*) FROM job_delay_task_execlog WHERE job_id = ?")) {
            s.setLong(1, Long.parseLong(jobId));
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return r.getInt(1);
            }
        }
    }

    private String submit(ApiClient app, String service, String bizKey, long delayMs) {
        ApiClient.Answer a = app.post(
                "/api/v1/jobs",
                "{\"service\":\"" + service + "\",\"delayMs\":" + delayMs + ",\"bizKey\":\"" + bizKey
                        + "\",\"payload\":{\"order\":\"" + bizKey + "\"},\"attributes\":{\"tenant\":\"eu\"}}");
        assertThat(a.status()).as(a.text()).isEqualTo(201);
        return a.json().get("id").asText();
    }

    private void openJobByBizKey(String bizKey) {
        go("jobs");
        type("jobId", "");
        type("jobBizKey", bizKey);
        byId("findJobs").click();
        wait.until(ExpectedConditions.elementToBeClickable(By.cssSelector("#jobs tr[data-job]")))
                .click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("jobDetail")));
    }

    private String detailState() {
        return byId("detailState").getText();
    }

    // ---- the tests ----

    @Test
    void theTokenLivesInSessionStorageOnlyAndAWrongOneIsRefused() {
        assertThat(byId("nav").isDisplayed()).as("the views before sign-in").isFalse();
        signIn("not-a-token");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("loginError"), "UNAUTHENTICATED"));
        assertThat(byId("app").isDisplayed()).isFalse();

        signIn(TestNodes.ADMIN_TOKEN);
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("nav")));
        assertThat(browser.getCurrentUrl()).doesNotContain(TestNodes.ADMIN_TOKEN);
        assertThat(browser.executeScript("return sessionStorage.getItem('hourglass.token')"))
                .isEqualTo(TestNodes.ADMIN_TOKEN);
        assertThat(browser.executeScript("return localStorage.length")).isEqualTo(0L);
        assertThat(byId("who").getText()).contains("admin");

        byId("logout").click();
        assertThat(browser.executeScript("return sessionStorage.getItem('hourglass.token')"))
                .isNull();
        assertThat(byId("login").isDisplayed()).isTrue();
    }

    @Test
    void theClusterViewShowsTheNodesAndLiveChartsOfFiring() throws Exception {
        signIn(TestNodes.ADMIN_TOKEN);
        String nodeId = cluster.nodes().get(0).nodeId();
        WebElement row = wait.until(
                ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#nodes tr[data-node='" + nodeId + "']")));
        assertThat(row.getText()).contains("master").contains("of 64");
        assertThat(byId("clusterSummary").getText()).contains("1 node(s)").contains("connected to ZooKeeper");

        for (int i = 0; i < 40; i++) {
            submit(shop, "close", "chart-" + i, 0);
        }
        // the page refreshes every 2 s on its own: the fired/s chart's scale (its top label) reaches
        // the burst's rate; no other test fires 15 jobs within one second
        wait.until(d -> {
            Object top = browser.executeScript("const t = document.querySelectorAll('#chartFired text');"
                    + " return t.length >= 3 ? Number(t[2].textContent) : 0;");
            return ((Number) top).doubleValue() >= 15;
        });
        assertThat(byId("legendOutcomes").getText()).contains("SUCCESS");
        assertThat(byId("liveTotals").getText()).contains("fired");
        screenshot("cluster");
    }

    @Test
    void eachInterventionOnOneJobChangesItInTheDatabase() throws Exception {
        String id = submit(shop, "close", "order-1001", 3_600_000);
        signIn(TestNodes.ADMIN_TOKEN);
        openJobByBizKey("order-1001");
        assertThat(detailState()).isEqualTo("DELAYED");
        assertThat(byId("detailPayload").getText()).contains("\"order\": \"order-1001\"");
        assertThat(byId("detailAttributes").getText()).contains("\"tenant\": \"eu\"");
        assertThat(byId("actRetry").isEnabled()).as("retry of a DELAYED job").isFalse();
        screenshot("job");

        // reschedule
        String local = "2031-05-06T07:08:09";
        setLocalTime("rescheduleAt", local);
        byId("actReschedule").click();
        banner("notice", "Reschedule");
        banner("notice", id);
        assertThat(fireAtInDatabase(id)).isEqualTo(browserInstant(local).toEpochMilli());

        // fire now: delivered at once, FINISHED (its attempt shows in the page)
        byId("actFire").click();
        await().atMost(Duration.ofSeconds(15)).until(() -> "FINISHED".equals(stateInDatabase(id)));
        assertThat(receiver.receivedFor(id)).hasSize(1);
        browser.navigate().refresh();
        openJobByBizKey("order-1001");
        assertThat(detailState()).isEqualTo("FINISHED");
        assertThat(byId("executions").getText()).contains("SUCCESS");
        assertThat(byId("actCancel").isEnabled()).isFalse();

        // cancel (after the browser's confirmation), then retry
        String second = submit(shop, "close", "order-1002", 3_600_000);
        openJobByBizKey("order-1002");
        byId("actCancel").click();
        browser.switchTo().alert().accept();
        banner("notice", "CANCELED");
        assertThat(stateInDatabase(second)).isEqualTo("CANCELED");

        wait.until(ExpectedConditions.elementToBeClickable(By.id("actRetry"))).click();
        banner("notice", "Retry");
        await().atMost(Duration.ofSeconds(15)).until(() -> "FINISHED".equals(stateInDatabase(second)));
        assertThat(receiver.receivedFor(second)).hasSize(1);

        // an intervention the API refuses shows its error and changes nothing
        openJobByBizKey("order-1002");
        browser.executeScript("document.getElementById('actFire').disabled = false");
        byId("actFire").click();
        banner("problem", "CONFLICT");
        assertThat(stateInDatabase(second)).isEqualTo("FINISHED");
    }

    @Test
    void jobSearchFiltersAndPagesAcrossLiveAndFinalJobs() throws Exception {
        for (int i = 0; i < 60; i++) {
            // later submits fire earlier: fire-time order is not the id order
            submit(shop, "close", "page-" + i, 3_600_000 - i * 1_000L);
        }
        String done = submit(shop, "close", "page-done", 0);
        await().atMost(Duration.ofSeconds(15)).until(() -> "FINISHED".equals(stateInDatabase(done)));
        signIn(TestNodes.ADMIN_TOKEN);
        go("jobs");
        type("jobService", "close");
        new org.openqa.selenium.support.ui.Select(byId("jobState")).selectByVisibleText("DELAYED");
        byId("findJobs").click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("pageInfo"), "page 1 · 50 job(s)"));
        byId("nextPage").click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("pageInfo"), "page 2"));
        assertThat(browser.findElements(By.cssSelector("#jobs tr[data-job]"))).hasSizeGreaterThanOrEqualTo(10);
        byId("prevPage").click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("pageInfo"), "page 1 · 50"));

        // a fire-time range: pages in fire-time order through the fire-time index
        String from = (String) browser.executeScript(
                "const d = new Date(Date.now() + 50 * 60000); d.setMinutes(d.getMinutes() - d.getTimezoneOffset());"
                        + " return d.toISOString().slice(0, 19);");
        String to = (String) browser.executeScript(
                "const d = new Date(Date.now() + 70 * 60000); d.setMinutes(d.getMinutes() - d.getTimezoneOffset());"
                        + " return d.toISOString().slice(0, 19);");
        setLocalTime("jobFireFrom", from);
        setLocalTime("jobFireTo", to);
        byId("findJobs").click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("pageInfo"), "page 1 · 50 job(s)"));
        List<String> firstPage = browser.findElements(By.cssSelector("#jobs tr[data-job] td:nth-child(6)")).stream()
                .map(WebElement::getText)
                .toList();
        assertThat(firstPage).isSortedAccordingTo(String::compareTo);
        byId("nextPage").click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("pageInfo"), "page 2"));
        List<String> secondPage = browser.findElements(By.cssSelector("#jobs tr[data-job] td:nth-child(6)")).stream()
                .map(WebElement::getText)
                .toList();
        assertThat(secondPage).isNotEmpty();
        assertThat(secondPage.get(0)).isGreaterThanOrEqualTo(firstPage.get(firstPage.size() - 1));
        setLocalTime("jobFireFrom", "");
        setLocalTime("jobFireTo", "");

        // a final job, by id
        type("jobId", done);
        byId("findJobs").click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("jobs"), "FINISHED"));
        assertThat(browser.findElements(By.cssSelector("#jobs tr[data-job]"))).hasSize(1);
    }

    @Test
    void bulkActionsConfirmHowManyJobsTheyTouchAndAreAudited() throws Exception {
        // cancel every DELAYED job of a bizKey prefix
        List<String> delayed = java.util.stream.IntStream.range(0, 7)
                .mapToObj(i -> submit(shop, "close", "bulk-cancel-" + i, 3_600_000))
                .toList();
        String untouched = submit(shop, "close", "keep-me", 3_600_000);
        signIn(TestNodes.ADMIN_TOKEN);
        go("bulk");
        new org.openqa.selenium.support.ui.Select(byId("bulkApp")).selectByVisibleText("shop");
        new org.openqa.selenium.support.ui.Select(byId("bulkAction")).selectByValue("CANCEL");
        type("bulkPrefix", "bulk-cancel-");
        byId("bulkPreview").click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("bulkCount"), "cancel 7 DELAYED"));
        for (String id : delayed) {
            assertThat(stateInDatabase(id)).as("a preview changes nothing").isEqualTo("DELAYED");
        }
        screenshot("bulk-confirm");
        byId("bulkRun").click();
        banner("notice", "7 job(s) changed");
        assertThat(byId("bulkConfirm").isDisplayed())
                .as("the confirmation, once used")
                .isFalse();
        for (String id : delayed) {
            assertThat(stateInDatabase(id)).isEqualTo("CANCELED");
        }
        assertThat(stateInDatabase(untouched)).isEqualTo("DELAYED");

        // retry every FAILED job of a service: each gets a second attempt
        List<String> failed = java.util.stream.IntStream.range(0, 4)
                .mapToObj(i -> submit(shop, "flaky", "bulk-flaky-" + i, 0))
                .toList();
        await().atMost(Duration.ofSeconds(15)).until(() -> failed.stream().allMatch(id -> {
            try {
                return "FAILED".equals(stateInDatabase(id));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }));
        new org.openqa.selenium.support.ui.Select(byId("bulkAction")).selectByValue("RETRY");
        type("bulkPrefix", "bulk-flaky-");
        type("bulkService", "flaky");
        byId("bulkPreview").click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("bulkCount"), "retry 4 FAILED"));
        byId("bulkRun").click();
        banner("notice", "4 job(s) changed");
        await().atMost(Duration.ofSeconds(15)).until(() -> failed.stream().allMatch(id -> {
            try {
                return executionsInDatabase(id) == 2;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }));

        // both runs are in the audit, newest first, with who and how many
        WebElement audit = byId("audit");
        wait.until(ExpectedConditions.textToBePresentInElement(audit, "RETRY"));
        List<WebElement> rows = audit.findElements(By.cssSelector("tr"));
        assertThat(rows.get(1).getText()).contains("admin").contains("RETRY").contains("bulk-flaky-");
        assertThat(rows.get(2).getText()).contains("admin").contains("CANCEL").contains("bulk-cancel-");
        JsonNode entries = admin.get("/api/v1/audit?app=shop").json().get("items");
        assertThat(entries.get(0).get("changed").asInt()).isEqualTo(4);
        assertThat(entries.get(1).get("changed").asInt()).isEqualTo(7);
        screenshot("bulk");
    }

    @Test
    void servicesShowTheirHealthAndAnEditGoesThroughTheApiWithItsChecks() throws Exception {
        String failing = submit(shop, "flaky", "health-1", 0);
        await().atMost(Duration.ofSeconds(15)).until(() -> "FAILED".equals(stateInDatabase(failing)));
        signIn(TestNodes.ADMIN_TOKEN);
        go("services");
        wait.until(ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector("#services tr[data-service='shop/flaky']")));
        // once the history has rolled past the failure: 100% of its attempts failed in the last minute
        wait.until(d -> {
            byId("refreshServices").click();
            return browser.findElement(By.cssSelector("#services tr[data-service='shop/flaky']"))
                    .getText()
                    .contains("100%");
        });
        assertThat(browser.findElement(By.cssSelector("#services tr[data-service='shop/flaky']"))
                        .getText())
                .contains("/ 1000");
        assertThat(byId("services").getText()).contains("other/mail");

        browser.findElement(By.cssSelector("#services tr[data-service='shop/close'] button.edit"))
                .click();
        WebElement json = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("serviceJson")));
        String edited = json.getAttribute("value").replace("\"maxInFlight\": 1000", "\"maxInFlight\": 7");
        browser.executeScript("arguments[0].value = arguments[1]", json, edited);
        byId("saveService").click();
        banner("notice", "saved");
        assertThat(shop.get("/api/v1/services/close").json().get("maxInFlight").asInt())
                .isEqualTo(7);
        screenshot("services");

        // a value the API refuses: its error shows, the service is unchanged
        browser.findElement(By.cssSelector("#services tr[data-service='shop/close'] button.edit"))
                .click();
        browser.executeScript(
                "arguments[0].value = arguments[0].value.replace('\"maxInFlight\": 7', '\"maxInFlight\": 0')",
                byId("serviceJson"));
        byId("saveService").click();
        banner("problem", "INVALID_ARGUMENT");
        banner("problem", "maxInFlight");
        assertThat(shop.get("/api/v1/services/close").json().get("maxInFlight").asInt())
                .isEqualTo(7);

        // paused from the dashboard: the badge shows, every node holds its jobs; resumed, it clears
        By closeRow = By.cssSelector("#services tr[data-service='shop/close']");
        browser.findElement(By.cssSelector("#services tr[data-service='shop/close'] button.pause"))
                .click();
        banner("notice", "shop/close paused");
        JsonNode paused = shop.get("/api/v1/services/close").json();
        assertThat(paused.get("paused").asBoolean()).isTrue();
        assertThat(paused.get("pausedBy").asText()).isEqualTo("admin");
        wait.until(d -> d.findElement(closeRow).getText().contains("paused"));
        browser.findElement(By.cssSelector("#services tr[data-service='shop/close'] button.resume"))
                .click();
        banner("notice", "shop/close resumed");
        assertThat(shop.get("/api/v1/services/close").json().get("paused").asBoolean())
                .isFalse();
        wait.until(d -> !d.findElement(closeRow).getText().contains("paused"));
    }

    @Test
    void schedulesShowTheirNextFireTimesAndArePausedResumedAndTriggered() throws Exception {
        assertThat(shop.put(
                                "/api/v1/schedules/report",
                                "{\"service\":\"close\",\"cron\":\"0 30 9 * * MON-FRI\",\"timeZone\":\"Asia/Shanghai\"}")
                        .status())
                .isEqualTo(200);
        signIn(TestNodes.ADMIN_TOKEN);
        go("schedules");
        By row = By.cssSelector("#schedules tr[data-schedule='shop/report']");
        wait.until(ExpectedConditions.visibilityOfElementLocated(row));
        String first = shop.get("/api/v1/schedules/report")
                .json()
                .get("nextFireTimes")
                .get(0)
                .asText();
        assertThat(browser.findElement(row).getText())
                .contains("cron 0 30 9 * * MON-FRI · Asia/Shanghai")
                .contains(first.replace("T", " ").replace("Z", ""))
                .contains("01:30:00"); // 09:30 in Shanghai, shown in UTC
        screenshot("schedules");

        browser.findElement(By.cssSelector("#schedules tr[data-schedule='shop/report'] button.pause"))
                .click();
        banner("notice", "shop/report paused");
        assertThat(shop.get("/api/v1/schedules/report").json().get("paused").asBoolean())
                .isTrue();
        wait.until(d -> d.findElement(row).getText().contains("paused"));
        assertThat(shop.get("/api/v1/jobs?schedule=report&state=DELAYED").json().get("items"))
                .as("the paused schedule's job that had not fired is canceled")
                .isEmpty();

        browser.findElement(By.cssSelector("#schedules tr[data-schedule='shop/report'] button.resume"))
                .click();
        banner("notice", "shop/report resumed");
        assertThat(shop.get("/api/v1/schedules/report").json().get("paused").asBoolean())
                .isFalse();
        assertThat(shop.get("/api/v1/jobs?schedule=report&state=DELAYED").json().get("items"))
                .hasSize(1);

        browser.findElement(By.cssSelector("#schedules tr[data-schedule='shop/report'] button.trigger"))
                .click();
        banner("notice", "Triggered shop/report");
        String text = byId("banner").getText();
        String jobId = text.substring(text.lastIndexOf("job ") + 4).trim();
        await().atMost(Duration.ofSeconds(15)).until(() -> "FINISHED".equals(stateInDatabase(jobId)));
        assertThat(shop.delete("/api/v1/schedules/report").status()).isEqualTo(204);
    }

    @Test
    void aFiringAlertShowsAndIsAcknowledged() throws Exception {
        for (int i = 0; i < 3; i++) {
            submit(shop, "flaky", "alert-" + i, 0);
        }
        await().atMost(Duration.ofSeconds(20))
                .until(() -> shop.get("/api/v1/alerts?state=FIRING&service=flaky")
                                .json()
                                .get("items")
                                .size()
                        == 1);
        String alertId = shop.get("/api/v1/alerts?state=FIRING&service=flaky")
                .json()
                .get("items")
                .get(0)
                .get("id")
                .asText();
        signIn(TestNodes.ADMIN_TOKEN);
        go("alerts");
        WebElement row = wait.until(ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector("#alerts tr[data-alert='" + alertId + "']")));
        assertThat(row.getText()).contains("shop/flaky").contains("FAILED_JOBS").contains("FIRING");
        screenshot("alerts");
        row.findElement(By.cssSelector("button.ack")).click();
        banner("notice", "acknowledged");
        JsonNode alert = shop.get("/api/v1/alerts?service=flaky&state=FIRING")
                .json()
                .get("items")
                .get(0);
        assertThat(alert.get("acknowledgedBy").asText()).isEqualTo("admin");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(
                By.cssSelector("#alerts tr[data-alert='" + alertId + "']"), "admin at"));
    }

    @Test
    void anAppTokenSeesOnlyItsOwnApp() throws Exception {
        String mine = submit(other, "mail", "other-1", 3_600_000);
        String theirs = submit(shop, "close", "shop-secret", 3_600_000);
        signIn(other.token());
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("who"), "app token"));
        go("services");
        wait.until(ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector("#services tr[data-service='other/mail']")));
        assertThat(byId("services").getText()).doesNotContain("shop/");

        go("jobs");
        byId("findJobs").click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#jobs tr[data-job='" + mine + "']")));
        assertThat(byId("jobs").getText()).doesNotContain("shop");
        type("jobId", theirs);
        byId("findJobs").click();
        banner("problem", "NOT_FOUND");

        go("bulk");
        assertThat(byId("bulkApp").isDisplayed()).isFalse();
        new org.openqa.selenium.support.ui.Select(byId("bulkAction")).selectByValue("CANCEL");
        type("bulkPrefix", "shop-");
        byId("bulkPreview").click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("bulkCount"), "0 DELAYED"));
        assertThat(byId("bulkRun").isEnabled()).isFalse();
        assertThat(stateInDatabase(theirs)).isEqualTo("DELAYED");
    }
}
