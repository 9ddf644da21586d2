package dev.hourglass.node.store.mybatis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hourglass.api.JobState;
import dev.hourglass.node.core.job.AttemptOutcome;
import dev.hourglass.node.core.job.AttemptResult;
import dev.hourglass.node.core.job.JobTransitions;
import dev.hourglass.node.core.job.NextStep;
import dev.hourglass.node.core.port.AttemptHolders;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.apache.ibatis.annotations.Delete;
import org.apache.ibatis.annotations.DeleteProvider;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.InsertProvider;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;
import org.apache.ibatis.annotations.SelectProvider;
import org.apache.ibatis.annotations.Update;
import org.apache.ibatis.annotations.UpdateProvider;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * {@link JobTransitions} is the one table of job state changes (docs/api.md, "Job states"); this
 * test holds the store to it. It reads every SQL statement of the store — the mapper XML files and
 * the SQL of mapper annotations — and for each one that sets a job's state it finds the source
 * states its {@code WHERE} names and the states it sets, then checks that
 *
 * <ul>
 *   <li>every change it can make (each source state to each target state) is in the table;
 *   <li>its source states are where it looks for them: live states in {@code job_delay_task},
 *       final ones in the backlog;
 *   <li>the comment just before it, {@code <!-- state: FROM, ... -> TO, ... -->}, says exactly that;
 *   <li>and every change of the table is made by some statement.
 * </ul>
 *
 * A statement that sets a state in a form this test cannot read fails it, named by its id: write
 * the state as a literal ({@code state = 'DELAYED'}, {@code state IN ('A', 'B')}) or as a parameter.
 *
 * <p>A state given as a parameter ({@code state = #{state}}, {@code state IN <foreach
 * collection="from">}) is whatever the statement's Java caller passes: {@link #callerStates} runs
 * the callers on a mapper that records it.
 *
 * <p>SQL built in Java is not parsed. Every file under store/ that builds SQL in Java strings must be
 * in {@link #JAVA_SQL}, with why it changes no job's state (job creation writes each new job in the
 * state of its {@code Job}: DELAYED, from JobManager), or in {@link #JAVA_STATE_CHANGES}: the end of
 * jobs into the backlog ({@link BacklogRowInsert}) writes rows from Java values, in the state of the
 * {@link NextStep} each result gives. Its source state is its caller's (it passes only jobs it locked
 * RUNNING, and deletes them from the live table conditionally on RUNNING); the states it writes are
 * recorded from the statement's values while the callers run. What that does not see: only
 * NextStep's factories are run here (they make FINISHED and FAILED final); its record constructor is
 * public and would take any state.
 */
class JobStatementsTest {
    private static final String LIVE = "job_delay_task";
    private static final String BACKLOG = "job_delay_task_backlog";
    private static final Set<String> JOB_TABLES = Set.of(LIVE, BACKLOG);

    /** Tables with a {@code state} column that is not a job's: alerts', and the live counts per job state. */
    private static final Set<String> OTHER_STATE_TABLES = Set.of("hg_alert", "hg_live_count", "hg_live_count_delta");

    /**
     * SQL built in Java strings under store/ (paths below it), and why it changes no job's state.
     * Mapper interfaces with SQL annotations are read like the XML, so they are not listed.
     */
    private static final Map<String, String> JAVA_SQL = Map.of(
            "mybatis/JobRowInsert.java",
            "creates jobs, each in the state of its new Job (DELAYED, from JobManager): no change of state",
            "mybatis/LiveCountDeltas.java",
            "hg_live_count_delta: live jobs counted per state; no job's state",
            "mybatis/BizKeyInsert.java",
            "hg_biz_key: takes jobs' bizKeys; no job's state",
            "mybatis/ExecutionLogWrite.java",
            "job_delay_task_execlog: writes the log rows of attempts that ended; no job's state",
            "mybatis/ExecutionLogClose.java",
            "job_delay_task_execlog: writes the outcomes of attempts into their log rows; no job's state");

    /**
     * SQL built in Java that changes jobs' states: the file, the states it takes jobs from, the key
     * under which {@link #callerStates} records the states its callers write ("Class#column"), and
     * why the source states hold.
     */
    record JavaChange(String file, Set<JobState> from, String written, String why) {}

    private static final List<JavaChange> JAVA_STATE_CHANGES = List.of(new JavaChange(
            "mybatis/BacklogRowInsert.java",
            EnumSet.of(JobState.RUNNING),
            "BacklogRowInsert#state",
            "MyBatisAttemptStore.record passes only jobs it locked with the attempt RUNNING, and deletes them"
                    + " from the live table in the same transaction (deleteEnded: state = 'RUNNING')"));

    private static final int CI = Pattern.CASE_INSENSITIVE | Pattern.DOTALL;
    /** A mention of the column {@code state} (not {@code notified_state}, {@code q.state}, {@code #{state}}). */
    private static final Pattern STATE = Pattern.compile("(?<![\\w.{'])state\\b", CI);

    private static final Pattern JOB_TABLE = Pattern.compile("\\bjob_delay_task(_backlog)?\\b", CI);
    private static final Pattern UPDATE = Pattern.compile("UPDATE\\s+(\\w+)\\s+SET\\s+(.*?)(?:\\s+WHERE\\s+(.*))?", CI);
    private static final Pattern INSERT = Pattern.compile(
            "INSERT\\s+(?:IGNORE\\s+)?INTO\\s+(\\w+)\\s*\\(([^()]*)\\)\\s*(VALUES|SELECT)\\b\\s*(.*)", CI);
    private static final Pattern ASSIGN = Pattern.compile("(?<![\\w.{'])state\\s*=\\s*", CI);
    private static final Pattern LITERAL = Pattern.compile("'(\\w+)'");
    private static final Pattern PARAMETER = Pattern.compile("#\\{\\s*([\\w.]+)(?:\\[])?[^}]*}");
    private static final Pattern WHERE_EQUALS_LITERAL = Pattern.compile("\\s*=\\s*'(\\w+)'.*", CI);
    private static final Pattern WHERE_IN_LITERALS =
            Pattern.compile("\\s*IN\\s*\\(\\s*('\\w+'(?:\\s*,\\s*'\\w+')*)\\s*\\).*", CI);
    private static final Pattern WHERE_IN_PARAMETER =
            Pattern.compile("\\s*IN\\s*\\(?\\s*#\\{([\\w.]+)\\[]}\\s*\\)?.*", CI);
    private static final Pattern WHERE_EQUALS_PARAMETER = Pattern.compile("\\s*=\\s*#\\{\\s*([\\w.]+)[^}]*}.*", CI);
    private static final Pattern COMMENT = Pattern.compile(
            "state:\\s*([A-Z]+(?:\\s*,\\s*[A-Z]+)*)\\s*->\\s*([A-Z]+(?:\\s*,\\s*[A-Z]+)*)(?![\\w,]).*", Pattern.DOTALL);

    @Test
    void everyStatementThatSetsAJobStateMakesChangesOfTheTableAndTheTableIsWhatTheyMake() throws Exception {
        List<Statement> statements = new ArrayList<>(mapperXmlStatements());
        statements.addAll(annotationStatements());

        Map<String, Set<String>> callerStates = callerStates();
        Report report = check(statements, callerStates);
        Report java = checkJava(JAVA_STATE_CHANGES, callerStates);

        assertThat(report.problems())
                .as("statements of the store that set a job's state (see JobStatementsTest)")
                .isEmpty();
        assertThat(java.problems())
                .as("SQL built in Java that sets a job's state (see JobStatementsTest)")
                .isEmpty();
        Set<String> pairs = new TreeSet<>(report.pairs());
        pairs.addAll(java.pairs());
        assertThat(pairs)
                .as("the changes the store's statements make, against JobTransitions")
                .isEqualTo(allowedPairs());
    }

    /**
     * The changes SQL built in Java makes, from the source states it declares to the states its
     * callers were seen to write; each written state must be final (it goes to the backlog) and
     * each change one of JobTransitions.
     */
    static Report checkJava(List<JavaChange> changes, Map<String, Set<String>> callerStates) {
        Set<String> pairs = new TreeSet<>();
        List<String> problems = new ArrayList<>();
        for (JavaChange c : changes) {
            String[] key = c.written().split("#", 2);
            Set<JobState> to = resolve(key[0], new States(Set.of(), Set.of(key[1])), callerStates, problems);
            if (to.isEmpty()) {
                problems.add(c.file() + ": no state was seen written by its callers");
            }
            for (JobState t : to) {
                if (!t.isFinal()) {
                    problems.add(c.file() + ": writes " + t + " to the backlog, where no job is " + t);
                }
                for (JobState f : c.from()) {
                    pairs.add(f + " -> " + t);
                    if (!JobTransitions.isAllowed(f, t)) {
                        problems.add(c.file() + ": " + f + " -> " + t + " is not a change of JobTransitions");
                    }
                }
            }
        }
        return new Report(pairs, problems);
    }

    @Test
    void sqlBuiltInJavaUnderStoreIsKnownToChangeNoJobState() throws IOException {
        Path store = Path.of(System.getProperty("user.dir"), "src/main/java/dev/hourglass/node/store");
        Set<String> readAsMappers = new TreeSet<>();
        for (Class<?> mapper : annotatedMappers()) {
            readAsMappers.add("mybatis/" + mapper.getSimpleName() + ".java");
        }
        Pattern sqlString = Pattern.compile("\"\\s*(INSERT|UPDATE|DELETE|REPLACE|MERGE)\\s");
        List<String> unknown = new ArrayList<>();
        try (Stream<Path> files = Files.walk(store)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                String relative = store.relativize(file).toString().replace('\\', '/');
                if (sqlString.matcher(Files.readString(file)).find()
                        && !JAVA_SQL.containsKey(relative)
                        && JAVA_STATE_CHANGES.stream().noneMatch(c -> c.file().equals(relative))
                        && !readAsMappers.contains(relative)) {
                    unknown.add(relative);
                }
            }
        }
        assertThat(unknown)
                .as("files under store/ that build SQL in Java strings: move the SQL to a mapper, or add the file"
                        + " to JobStatementsTest.JAVA_SQL with why it changes no job's state (or to"
                        + " JAVA_STATE_CHANGES with the changes it makes)")
                .isEmpty();
        JAVA_SQL.keySet().forEach(f -> assertThat(store.resolve(f)).exists());
        JAVA_STATE_CHANGES.forEach(c -> assertThat(store.resolve(c.file())).exists());
    }

    /** The checks themselves can fail, each naming the statement at fault. */
    @Test
    void aStatementTheTableDoesNotAllowOrThisTestCannotReadFailsByItsId() throws Exception {
        String mapper = """
                <mapper namespace="x.Sneaky">
                  <!-- state: RUNNING -> EXPIRED -->
                  <update id="notInTable">
                    UPDATE job_delay_task SET state = 'EXPIRED' WHERE id = #{id} AND state = 'RUNNING'
                  </update>
                  <!-- state: RUNNING -> FAILED, DELAYED -->
                  <update id="computed">
                    UPDATE job_delay_task SET state = CASE WHEN attempts &gt; 3 THEN 'FAILED' ELSE 'DELAYED' END
                    WHERE id = #{id} AND state = 'RUNNING'
                  </update>
                  <!-- state: RUNNING -> DELAYED -->
                  <update id="unconditional">
                    UPDATE job_delay_task SET state = 'DELAYED' WHERE id = #{id}
                  </update>
                  <!-- state: RUNNING -> FINISHED -->
                  <update id="ored">
                    UPDATE job_delay_task SET state = 'FINISHED' WHERE state = 'RUNNING' OR id = #{id}
                  </update>
                  <update id="uncommented">
                    UPDATE job_delay_task SET state = 'FINISHED' WHERE id = #{id} AND state = 'RUNNING'
                  </update>
                  <!-- state: RUNNING -> FINISHED -->
                  <update id="commentDisagrees">
                    UPDATE job_delay_task SET state = 'FAILED' WHERE id = #{id} AND state = 'RUNNING'
                  </update>
                  <!-- state: DELAYED -> CANCELED -->
                  <update id="uncheckedParameter">
                    UPDATE job_delay_task SET state = #{to} WHERE id = #{id} AND state = 'DELAYED'
                  </update>
                  <!-- state: FAILED -> DELAYED -->
                  <update id="wrongTable">
                    UPDATE job_delay_task SET state = 'DELAYED' WHERE id = #{id} AND state = 'FAILED'
                  </update>
                  <update id="otherTable">
                    UPDATE hg_job_shadow SET state = 'DELAYED' WHERE id = #{id}
                  </update>
                  <!-- state: RUNNING -> FINISHED -->
                  <update id="fine">
                    UPDATE job_delay_task SET state = 'FINISHED' WHERE id = #{id} AND state = 'RUNNING'
                  </update>
                </mapper>
                """;
        Report report =
                check(statementsOf(new ByteArrayInputStream(mapper.getBytes(StandardCharsets.UTF_8))), Map.of());

        assertThat(report.problems())
                .anySatisfy(p -> assertThat(p).startsWith("Sneaky.notInTable: RUNNING -> EXPIRED is not"))
                .anySatisfy(p -> assertThat(p).startsWith("Sneaky.computed: sets state = CASE"))
                .anySatisfy(p ->
                        assertThat(p).startsWith("Sneaky.unconditional: sets a job's state without naming its source"))
                .anySatisfy(p -> assertThat(p).startsWith("Sneaky.ored: has OR at the top of its WHERE"))
                .anySatisfy(p -> assertThat(p).startsWith("Sneaky.uncommented: sets a job's state without"))
                .anySatisfy(p -> assertThat(p).startsWith("Sneaky.commentDisagrees: its comment says"))
                .anySatisfy(p -> assertThat(p).startsWith("Sneaky.uncheckedParameter: takes its state from #{to}"))
                .anySatisfy(p -> assertThat(p).startsWith("Sneaky.wrongTable: takes FAILED jobs from job_delay_task"))
                .anySatisfy(p -> assertThat(p).startsWith("Sneaky.otherTable: sets the state of hg_job_shadow"))
                .noneSatisfy(p -> assertThat(p).startsWith("Sneaky.fine"));
    }

    /**
     * The source state JAVA_STATE_CHANGES declares for the backlog insert is its caller's to keep:
     * a result writes the job to the backlog only when the job is locked RUNNING with the result's
     * attempt. Run on the recording store, the insert is seen for that job and for no other.
     */
    @Test
    void theBacklogInsertIsMadeOnlyForAJobLockedRunningWithTheResultsAttempt() {
        record Case(String lockedState, int attempt, boolean written) {}
        for (Case c : List.of(
                new Case("RUNNING", 1, true),
                new Case("RUNNING", 2, false),
                new Case("DELAYED", 1, false),
                new Case("FAILED", 1, false))) {
            Map<String, Set<String>> seen = new TreeMap<>();
            MyBatisAttemptStore store =
                    new MyBatisAttemptStore(sessions(seen, c.lockedState()), "n1", new SqlFailures());
            store.record(
                    List.of(new AttemptResult(
                            7, c.attempt(), AttemptOutcome.SUCCESS, "m", null, 1_000L, NextStep.finished(), 0, "a/s")),
                    1_000);
            assertThat(seen.getOrDefault("BacklogRowInsert#state", Set.of()))
                    .as(
                            "backlog rows written for a job locked %s, a result of attempt %d",
                            c.lockedState(), c.attempt())
                    .isEqualTo(c.written() ? Set.of("FINISHED") : Set.of());
        }
    }

    /** The check of SQL built in Java fails too, naming the file. */
    @Test
    void javaSqlWhoseCallersWriteALiveStateOrNoneOrAChangeTheTableDoesNotAllowFails() {
        Report report = checkJava(
                List.of(
                        new JavaChange("Live.java", EnumSet.of(JobState.RUNNING), "Live#state", "test"),
                        new JavaChange("Unseen.java", EnumSet.of(JobState.RUNNING), "Unseen#state", "test"),
                        new JavaChange("Never.java", EnumSet.of(JobState.FAILED), "Never#state", "test"),
                        new JavaChange("Fine.java", EnumSet.of(JobState.RUNNING), "Fine#state", "test")),
                Map.of(
                        "Live#state", Set.of("DELAYED"),
                        "Never#state", Set.of("FINISHED"),
                        "Fine#state", Set.of("FINISHED", "FAILED")));

        assertThat(report.problems())
                .anySatisfy(p -> assertThat(p).startsWith("Live.java: writes DELAYED to the backlog"))
                .anySatisfy(p -> assertThat(p).startsWith("Unseen: takes its state from #{state}, and no Java caller"))
                .anySatisfy(p -> assertThat(p).startsWith("Unseen.java: no state was seen written"))
                .anySatisfy(p -> assertThat(p).startsWith("Never.java: FAILED -> FINISHED is not a change"))
                .noneSatisfy(p -> assertThat(p).startsWith("Fine"));
        assertThat(report.pairs()).contains("RUNNING -> FINISHED", "RUNNING -> FAILED");
    }

    // ---- the check ----------------------------------------------------------------------------

    /** One statement: its id (Mapper.statement), its SQL with the dynamic parts flattened, its "state:" comment. */
    record Statement(String id, String sql, String comment, String unreadable) {}

    /** States given as literals, and the names of the parameters that give more. */
    record States(Set<JobState> literals, Set<String> parameters) {}

    /** What a statement changes: jobs in the {@code from} states of {@code table} to the {@code to} states. */
    record Change(String table, States from, States to) {}

    /** The changes the statements make ("FROM -> TO"), and what is wrong with them. */
    record Report(Set<String> pairs, List<String> problems) {}

    /** A statement writes a state in a form this test cannot read. */
    private static final class Unreadable extends RuntimeException {
        Unreadable(String message) {
            super(message);
        }
    }

    /**
     * Checks each statement; {@code callerStates} holds, per "Mapper.statement#parameter", the
     * states its Java callers were seen to pass.
     */
    static Report check(List<Statement> statements, Map<String, Set<String>> callerStates) {
        Set<String> pairs = new TreeSet<>();
        List<String> problems = new ArrayList<>();
        for (Statement s : statements) {
            Change change;
            try {
                if (s.unreadable() != null) {
                    throw new Unreadable(s.unreadable());
                }
                change = changeOf(s.sql());
            } catch (Unreadable e) {
                problems.add(s.id() + ": " + e.getMessage() + " [" + s.sql() + "]");
                continue;
            }
            if (change == null) {
                if (s.comment() != null) {
                    problems.add(s.id() + ": has a \"state:\" comment but sets no job's state");
                }
                continue;
            }
            Set<JobState> from = resolve(s.id(), change.from(), callerStates, problems);
            Set<JobState> to = resolve(s.id(), change.to(), callerStates, problems);
            checkComment(s, from, to, problems);
            for (JobState f : from) {
                if (f.isFinal() != change.table().equals(BACKLOG)) {
                    problems.add(s.id() + ": takes " + f + " jobs from " + change.table() + ", where no job is " + f);
                }
                for (JobState t : to) {
                    pairs.add(f + " -> " + t);
                    if (!JobTransitions.isAllowed(f, t)) {
                        problems.add(s.id() + ": " + f + " -> " + t + " is not a change of JobTransitions");
                    }
                }
            }
        }
        return new Report(pairs, problems);
    }

    private static Set<JobState> resolve(
            String id, States states, Map<String, Set<String>> callerStates, List<String> problems) {
        Set<JobState> resolved = EnumSet.noneOf(JobState.class);
        resolved.addAll(states.literals());
        for (String parameter : states.parameters()) {
            Set<String> passed = callerStates.get(id + "#" + parameter);
            if (passed == null) {
                problems.add(id + ": takes its state from #{" + parameter + "}, and no Java caller of it is run"
                        + " by JobStatementsTest.callerStates to see what it passes");
                continue;
            }
            for (String name : passed) {
                try {
                    resolved.add(JobState.valueOf(name));
                } catch (IllegalArgumentException e) {
                    problems.add(id + ": its caller passes " + name + " for #{" + parameter + "}: not a job state");
                }
            }
        }
        return resolved;
    }

    private static void checkComment(Statement s, Set<JobState> from, Set<JobState> to, List<String> problems) {
        if (s.comment() == null) {
            problems.add(s.id() + ": sets a job's state without a comment <!-- state: " + names(from) + " -> "
                    + names(to) + " --> just before it");
            return;
        }
        Matcher m = COMMENT.matcher(s.comment());
        if (!m.matches()) {
            problems.add(s.id() + ": its comment \"" + s.comment() + "\" is not \"state: FROM[, FROM] -> TO[, TO]\"");
            return;
        }
        Set<JobState> saidFrom;
        Set<JobState> saidTo;
        try {
            saidFrom = statesNamed(m.group(1));
            saidTo = statesNamed(m.group(2));
        } catch (IllegalArgumentException e) {
            problems.add(s.id() + ": its comment \"" + s.comment() + "\" names what is not a job state");
            return;
        }
        if (!saidFrom.equals(from) || !saidTo.equals(to)) {
            problems.add(s.id() + ": its comment says " + names(saidFrom) + " -> " + names(saidTo)
                    + ", its SQL and callers make " + names(from) + " -> " + names(to));
        }
    }

    private static Set<JobState> statesNamed(String list) {
        Set<JobState> states = EnumSet.noneOf(JobState.class);
        for (String name : list.split(",")) {
            states.add(JobState.valueOf(name.trim()));
        }
        return states;
    }

    private static String names(Set<JobState> states) {
        return String.join(", ", states.stream().map(Enum::name).toList());
    }

    private static Set<String> allowedPairs() {
        Set<String> pairs = new TreeSet<>();
        for (JobState from : JobState.values()) {
            for (JobState to : JobState.values()) {
                if (JobTransitions.isAllowed(from, to)) {
                    pairs.add(from + " -> " + to);
                }
            }
        }
        return pairs;
    }

    // ---- reading one statement --------------------------------------------------------------

    /** The change {@code sql} makes to a job's state; null when it sets none. */
    static Change changeOf(String sql) {
        Matcher head = Pattern.compile("^[(\\s]*(\\w+)").matcher(sql);
        String kind = head.find() ? head.group(1).toUpperCase(Locale.ROOT) : "";
        switch (kind) {
            case "SELECT", "DELETE":
                return null;
            case "UPDATE":
                return updateChange(sql);
            case "INSERT":
                return insertChange(sql);
            default:
                if (STATE.matcher(sql).find() || JOB_TABLE.matcher(sql).find()) {
                    throw new Unreadable("is a kind of statement JobStatementsTest does not read (" + kind + ")");
                }
                return null;
        }
    }

    private static Change updateChange(String sql) {
        Matcher m = UPDATE.matcher(sql);
        if (!m.matches()) {
            if (STATE.matcher(sql).find()) {
                throw new Unreadable("is an UPDATE JobStatementsTest cannot read (one table, SET, WHERE)");
            }
            return null;
        }
        String table = m.group(1).toLowerCase(Locale.ROOT);
        String set = m.group(2);
        if (!ASSIGN.matcher(set).find() || !isJobTable(table)) {
            return null;
        }
        States to = assigned(set);
        String where = m.group(3);
        if (where == null) {
            throw new Unreadable("sets a job's state with no WHERE: it must name the source states");
        }
        return new Change(table, sources(where), to);
    }

    private static Change insertChange(String sql) {
        Matcher m = INSERT.matcher(sql);
        if (!m.matches()) {
            if (STATE.matcher(sql).find() || JOB_TABLE.matcher(sql).find()) {
                throw new Unreadable("is an INSERT JobStatementsTest cannot read (INSERT INTO t (columns) ...)");
            }
            return null;
        }
        String table = m.group(1).toLowerCase(Locale.ROOT);
        List<String> columns = splitTopLevel(m.group(2)).stream()
                .map(c -> c.trim().toLowerCase(Locale.ROOT))
                .toList();
        int stateColumn = columns.indexOf("state");
        if (stateColumn < 0 || !isJobTable(table)) {
            return null;
        }
        if (m.group(3).equalsIgnoreCase("VALUES")) {
            throw new Unreadable("inserts jobs from VALUES: new jobs are JobRowInsert's, not a change of state");
        }
        String select = m.group(4);
        int fromAt = topLevelWord(select, "FROM");
        if (fromAt < 0) {
            throw new Unreadable("inserts jobs from a SELECT without FROM");
        }
        List<String> values = splitTopLevel(select.substring(0, fromAt));
        if (values.size() != columns.size()) {
            throw new Unreadable("inserts " + columns.size() + " columns from " + values.size() + " values");
        }
        Matcher source =
                Pattern.compile("FROM\\s+(\\w+)(?:\\s+WHERE\\s+(.*))?", CI).matcher(select.substring(fromAt));
        if (!source.matches() || !JOB_TABLES.contains(source.group(1).toLowerCase(Locale.ROOT))) {
            throw new Unreadable("inserts jobs from something other than one job table");
        }
        String value = values.get(stateColumn).trim();
        if (value.equalsIgnoreCase("state")) {
            return null; // a copy (to the backlog): the job keeps its state
        }
        States to = value(value);
        if (source.group(2) == null) {
            throw new Unreadable("sets a job's state with no WHERE: it must name the source states");
        }
        return new Change(source.group(1).toLowerCase(Locale.ROOT), sources(source.group(2)), to);
    }

    private static boolean isJobTable(String table) {
        if (JOB_TABLES.contains(table)) {
            return true;
        }
        if (OTHER_STATE_TABLES.contains(table)) {
            return false;
        }
        throw new Unreadable("sets the state of " + table + ", a table JobStatementsTest does not know:"
                + " add it to JOB_TABLES or OTHER_STATE_TABLES");
    }

    /** The states a SET clause assigns: each {@code state = 'X'} or {@code state = #{p}}. */
    private static States assigned(String set) {
        Set<JobState> literals = EnumSet.noneOf(JobState.class);
        Set<String> parameters = new TreeSet<>();
        Matcher m = ASSIGN.matcher(set);
        while (m.find()) {
            List<String> rest = splitTopLevel(set.substring(m.end()));
            States one = value(rest.get(0).trim());
            literals.addAll(one.literals());
            parameters.addAll(one.parameters());
        }
        return new States(literals, parameters);
    }

    /** A state written as {@code 'X'} or {@code #{p}}. */
    private static States value(String expression) {
        Matcher literal = LITERAL.matcher(expression);
        if (literal.matches()) {
            return new States(EnumSet.of(state(literal.group(1))), Set.of());
        }
        Matcher parameter = PARAMETER.matcher(expression);
        if (parameter.matches()) {
            return new States(EnumSet.noneOf(JobState.class), Set.of(parameter.group(1)));
        }
        throw new Unreadable("sets state = " + expression + ": only a 'LITERAL' or a #{parameter} can be read");
    }

    /** The source states a WHERE clause names: one condition on state, ANDed with the rest. */
    private static States sources(String where) {
        if (topLevelWord(where, "OR") >= 0) {
            throw new Unreadable("has OR at the top of its WHERE: the state condition must hold for every row");
        }
        Matcher mention = STATE.matcher(where);
        List<Integer> ends = new ArrayList<>();
        int at = -1;
        while (mention.find()) {
            at = at < 0 ? mention.start() : at;
            ends.add(mention.end());
        }
        if (ends.isEmpty()) {
            throw new Unreadable("sets a job's state without naming its source states in its WHERE");
        }
        if (ends.size() > 1 || depthAt(where, at) != 0) {
            throw new Unreadable("names state " + ends.size() + " times in its WHERE, or inside parentheses:"
                    + " JobStatementsTest reads one condition, ANDed with the rest");
        }
        String rest = where.substring(ends.get(0));
        Matcher m;
        if ((m = WHERE_EQUALS_LITERAL.matcher(rest)).matches()) {
            return new States(EnumSet.of(state(m.group(1))), Set.of());
        }
        if ((m = WHERE_IN_LITERALS.matcher(rest)).matches()) {
            Set<JobState> states = EnumSet.noneOf(JobState.class);
            for (String quoted : m.group(1).split(",")) {
                states.add(state(quoted.trim().replace("'", "")));
            }
            return new States(states, Set.of());
        }
        if ((m = WHERE_IN_PARAMETER.matcher(rest)).matches() || (m = WHERE_EQUALS_PARAMETER.matcher(rest)).matches()) {
            return new States(EnumSet.noneOf(JobState.class), Set.of(m.group(1)));
        }
        throw new Unreadable("names its source states in a form JobStatementsTest cannot read: state"
                + rest.substring(0, Math.min(rest.length(), 40)));
    }

    private static JobState state(String name) {
        try {
            return JobState.valueOf(name);
        } catch (IllegalArgumentException e) {
            throw new Unreadable("names '" + name + "', which is not a job state");
        }
    }

    /** {@code text} split at the commas outside parentheses and quotes. */
    private static List<String> splitTopLevel(String text) {
        List<String> parts = new ArrayList<>();
        int depth = 0;
        boolean quoted = false;
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\'') {
                quoted = !quoted;
            } else if (!quoted && c == '(') {
                depth++;
            } else if (!quoted && c == ')') {
                depth--;
            } else if (!quoted && depth == 0 && c == ',') {
                parts.add(text.substring(start, i));
                start = i + 1;
            }
        }
        parts.add(text.substring(start));
        return parts;
    }

    /** Where {@code word} first stands outside parentheses and quotes, or -1. */
    private static int topLevelWord(String text, String word) {
        Matcher m =
                Pattern.compile("\\b" + word + "\\b", Pattern.CASE_INSENSITIVE).matcher(text);
        while (m.find()) {
            if (depthAt(text, m.start()) == 0) {
                return m.start();
            }
        }
        return -1;
    }

    /** The parentheses open at {@code position} (a quoted text counts as one level). */
    private static int depthAt(String text, int position) {
        int depth = 0;
        boolean quoted = false;
        for (int i = 0; i < position; i++) {
            char c = text.charAt(i);
            if (c == '\'') {
                quoted = !quoted;
            } else if (!quoted && c == '(') {
                depth++;
            } else if (!quoted && c == ')') {
                depth--;
            }
        }
        return depth + (quoted ? 1 : 0);
    }

    // ---- the store's statements -------------------------------------------------------------

    /** Every mapper XML file of the store (all of them, so that a new one is read too). */
    private static List<Statement> mapperXmlStatements() throws Exception {
        Path dir = Path.of(JobStatementsTest.class.getResource("JobMapper.xml").toURI())
                .getParent();
        List<Statement> statements = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file :
                    files.filter(f -> f.toString().endsWith(".xml")).sorted().toList()) {
                try (InputStream in = Files.newInputStream(file)) {
                    statements.addAll(statementsOf(in));
                }
            }
        }
        assertThat(statements).as("statements of " + dir).hasSizeGreaterThan(40);
        return statements;
    }

    static List<Statement> statementsOf(InputStream xml) throws Exception {
        Element mapper = parse(xml).getDocumentElement();
        String namespace = mapper.getAttribute("namespace");
        String name = namespace.substring(namespace.lastIndexOf('.') + 1);
        Map<String, Element> fragments = new HashMap<>();
        List<Element> elements = children(mapper);
        for (Element e : elements) {
            if (e.getTagName().equals("sql")) {
                fragments.put(e.getAttribute("id"), e);
            }
        }
        List<Statement> statements = new ArrayList<>();
        for (Element e : elements) {
            if (!Set.of("select", "insert", "update", "delete").contains(e.getTagName())) {
                continue;
            }
            String id = name + "." + e.getAttribute("id");
            StringBuilder sql = new StringBuilder();
            String unreadable = null;
            try {
                render(e, namespace, fragments, sql);
            } catch (Unreadable u) {
                unreadable = u.getMessage();
            }
            statements.add(new Statement(id, flat(sql.toString()), stateComment(e), unreadable));
        }
        return statements;
    }

    private static Document parse(InputStream xml) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setValidating(false);
        factory.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        return factory.newDocumentBuilder().parse(xml);
    }

    private static List<Element> children(Element parent) {
        List<Element> elements = new ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e) {
                elements.add(e);
            }
        }
        return elements;
    }

    /** The nearest comment among those just before {@code e} that starts with "state:", or null. */
    private static String stateComment(Element e) {
        for (Node n = e.getPreviousSibling(); n != null; n = n.getPreviousSibling()) {
            if (n.getNodeType() == Node.COMMENT_NODE) {
                String text = n.getNodeValue().trim();
                if (text.startsWith("state:")) {
                    return flat(text);
                }
            } else if (n.getNodeType() != Node.TEXT_NODE || !n.getNodeValue().isBlank()) {
                return null;
            }
        }
        return null;
    }

    /**
     * The SQL of a statement with every branch of its dynamic parts in it. A {@code <foreach>} of
     * one parameter becomes {@code #{collection[]}}, so {@code state IN <foreach collection="from">}
     * reads as taking its states from the parameter {@code from}.
     */
    private static void render(Node node, String namespace, Map<String, Element> fragments, StringBuilder out) {
        for (Node n = node.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n.getNodeType() == Node.TEXT_NODE || n.getNodeType() == Node.CDATA_SECTION_NODE) {
                out.append(n.getNodeValue());
            } else if (n instanceof Element e) {
                out.append(' ');
                switch (e.getTagName()) {
                    case "include" -> {
                        String refid = e.getAttribute("refid");
                        if (refid.startsWith(namespace + ".")) {
                            refid = refid.substring(namespace.length() + 1);
                        }
                        Element fragment = fragments.get(refid);
                        if (fragment == null) {
                            throw new Unreadable("includes <sql id=\"" + refid + "\">, which is not in its mapper");
                        }
                        render(fragment, namespace, fragments, out);
                    }
                    case "where", "set" -> {
                        out.append(e.getTagName().toUpperCase(Locale.ROOT)).append(' ');
                        render(e, namespace, fragments, out);
                    }
                    case "trim" -> {
                        out.append(e.getAttribute("prefix")).append(' ');
                        render(e, namespace, fragments, out);
                        out.append(' ').append(e.getAttribute("suffix"));
                    }
                    case "foreach" -> {
                        StringBuilder body = new StringBuilder();
                        render(e, namespace, fragments, body);
                        out.append(e.getAttribute("open")).append(' ');
                        out.append(
                                flat(body.toString()).matches("#\\{[^}]*}")
                                        ? "#{" + e.getAttribute("collection") + "[]}"
                                        : body);
                        out.append(' ').append(e.getAttribute("close"));
                    }
                    case "if", "choose", "when", "otherwise" -> render(e, namespace, fragments, out);
                    case "bind" -> {}
                    default ->
                        throw new Unreadable("has <" + e.getTagName() + ">, which JobStatementsTest does not read");
                }
                out.append(' ');
            }
        }
    }

    private static String flat(String text) {
        return text.replaceAll("\\s+", " ").trim();
    }

    private static final List<Class<? extends java.lang.annotation.Annotation>> PROVIDERS =
            List.of(SelectProvider.class, InsertProvider.class, UpdateProvider.class, DeleteProvider.class);

    /** The SQL of the mapper annotations of the store's mapper interfaces. */
    private static List<Statement> annotationStatements() throws Exception {
        List<Statement> statements = new ArrayList<>();
        for (Class<?> mapper : annotatedMappers()) {
            for (Method m : mapper.getDeclaredMethods()) {
                String id = mapper.getSimpleName() + "." + m.getName();
                for (Class<? extends java.lang.annotation.Annotation> provider : PROVIDERS) {
                    if (m.isAnnotationPresent(provider)) {
                        statements.add(new Statement(id, "", null, "builds its SQL in a provider"));
                    }
                }
                String[] sql = annotationSql(m);
                if (sql == null) {
                    continue;
                }
                String text = String.join(" ", sql).trim();
                if (text.startsWith("<script>")) {
                    Element script = parse(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)))
                            .getDocumentElement();
                    StringBuilder out = new StringBuilder();
                    String unreadable = null;
                    try {
                        render(script, "", Map.of(), out);
                    } catch (Unreadable u) {
                        unreadable = u.getMessage();
                    }
                    statements.add(new Statement(id, flat(out.toString()), null, unreadable));
                } else {
                    statements.add(new Statement(id, flat(text), null, null));
                }
            }
        }
        return statements;
    }

    private static String[] annotationSql(Method m) {
        if (m.getAnnotation(Select.class) != null) {
            return m.getAnnotation(Select.class).value();
        }
        if (m.getAnnotation(Insert.class) != null) {
            return m.getAnnotation(Insert.class).value();
        }
        if (m.getAnnotation(Update.class) != null) {
            return m.getAnnotation(Update.class).value();
        }
        if (m.getAnnotation(Delete.class) != null) {
            return m.getAnnotation(Delete.class).value();
        }
        return null;
    }

    /** The interfaces of this package with SQL (or SQL providers) in annotations. */
    private static List<Class<?>> annotatedMappers() {
        Path dir;
        try {
            dir = Path.of(JobMapper.class.getResource("JobMapper.class").toURI())
                    .getParent();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        List<Class<?>> interfaces = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.sorted().toList()) {
                String name = file.getFileName().toString();
                if (!name.endsWith(".class") || name.contains("$")) {
                    continue;
                }
                Class<?> c = Class.forName(
                        JobMapper.class.getPackageName() + "." + name.substring(0, name.length() - 6),
                        false,
                        JobMapper.class.getClassLoader());
                if (c.isInterface()) {
                    interfaces.add(c);
                }
            }
        } catch (IOException | ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
        assertThat(interfaces).as("interfaces of " + dir).contains(JobMapper.class);
        return interfaces.stream()
                .filter(c -> Stream.of(c.getDeclaredMethods())
                        .anyMatch(m ->
                                annotationSql(m) != null || PROVIDERS.stream().anyMatch(m::isAnnotationPresent)))
                .toList();
    }

    // ---- what the Java callers pass for the states that are parameters --------------------------

    /**
     * Runs the callers of the statements whose states are parameters on a JobMapper that records
     * every String it is given, per "JobMapper.method#parameter": cancel (of a DELAYED job, and of
     * a RUNNING one whatever its holder answers), manual retry, and the end of an attempt for every
     * final step NextStep's factories make.
     */
    private static Map<String, Set<String>> callerStates() throws Exception {
        Map<String, Set<String>> seen = new TreeMap<>();
        for (String state : List.of("DELAYED", "RUNNING")) {
            for (AttemptHolders.Answer answer : AttemptHolders.Answer.values()) {
                MyBatisJobMutations mutations = new MyBatisJobMutations(sessions(seen, state), "n1");
                untilStopped(() -> mutations.cancel(7, null, () -> 1_000L, (node, id, attempt) -> answer));
            }
        }
        MyBatisJobMutations mutations = new MyBatisJobMutations(sessions(seen, "FAILED"), "n1");
        untilStopped(() -> mutations.revive(7, null, 2_000, 0, 1_000));
        for (NextStep next : nextSteps()) {
            if (next.isFinal()) {
                MyBatisAttemptStore store = new MyBatisAttemptStore(sessions(seen, "RUNNING"), "n1", new SqlFailures());
                store.record(
                        List.of(new AttemptResult(7, 1, AttemptOutcome.FAIL, "m", null, 1_000L, next, 0, "a/s")),
                        1_000);
            }
        }
        return seen;
    }

    /** Every NextStep its static factories make. */
    private static List<NextStep> nextSteps() throws Exception {
        List<NextStep> steps = new ArrayList<>();
        for (Method m : NextStep.class.getMethods()) {
            if (Modifier.isStatic(m.getModifiers()) && m.getReturnType() == NextStep.class) {
                Object[] args = Stream.of(m.getParameterTypes())
                        .map(JobStatementsTest::zero)
                        .toArray();
                steps.add((NextStep) m.invoke(null, args));
            }
        }
        assertThat(steps).as("NextStep's factories").isNotEmpty();
        return steps;
    }

    /** Thrown by the recording mapper once it has seen the statement a caller was run for. */
    private static final class Stop extends RuntimeException {}

    private static void untilStopped(Runnable caller) {
        try {
            caller.run();
        } catch (Stop expected) {
            // seen
        }
    }

    /**
     * Sessions whose JobMapper records the Strings it is given into {@code seen}, finds job 7 live
     * in {@code lockedState} (attempt 1, owned by n1), and stops a caller at markFinal and revive
     * (what follows them reads rows only a database has).
     */
    private static SqlSessionFactory sessions(Map<String, Set<String>> seen, String lockedState) {
        LockedJobRow locked = new LockedJobRow();
        locked.id = 7;
        locked.app = "a";
        locked.service = "s";
        locked.state = lockedState;
        locked.attempts = 1;
        locked.ownerNode = "n1";
        JobMapper mapper = proxy(JobMapper.class, (p, method, args) -> {
            if (method.getDeclaringClass() == Object.class) {
                return objectMethod(p, method, args);
            }
            for (int i = 0; i < method.getParameterCount(); i++) {
                Param param = method.getParameters()[i].getAnnotation(Param.class);
                Set<String> values = seen.computeIfAbsent(
                        "JobMapper." + method.getName() + "#" + (param == null ? i : param.value()),
                        k -> new TreeSet<>());
                if (args[i] instanceof String s) {
                    values.add(s);
                } else if (args[i] instanceof Collection<?> c) {
                    c.forEach(v -> values.add(String.valueOf(v)));
                }
            }
            return switch (method.getName()) {
                case "markFinal", "revive" -> throw new Stop();
                default -> zero(method.getReturnType());
            };
        });
        Connection connection = lockingConnection(locked, seen);
        org.apache.ibatis.session.Configuration configuration = new org.apache.ibatis.session.Configuration();
        configuration.setDatabaseId(Database.MYSQL);
        SqlSession session = proxy(SqlSession.class, (p, method, args) -> switch (method.getName()) {
            case "getMapper" -> mapper;
            case "getConnection" -> connection;
            case "getConfiguration" -> configuration;
            default ->
                method.getDeclaringClass() == Object.class
                        ? objectMethod(p, method, args)
                        : zero(method.getReturnType());
        });
        return proxy(
                SqlSessionFactory.class,
                (p, method, args) -> method.getName().equals("openSession")
                        ? session
                        : method.getDeclaringClass() == Object.class
                                ? objectMethod(p, method, args)
                                : zero(method.getReturnType()));
    }

    /**
     * A connection whose only answer is to the lock every change of state takes first (plain JDBC,
     * JobRowSelect.lockLive, or lockLiveWhole with the whole row): it finds {@code locked}. Most
     * statements that change a job's state go through the recording JobMapper; of an insert into the
     * backlog built in Java (BacklogRowInsert) it records, into {@code seen}, the states the values
     * give, per "BacklogRowInsert#state".
     */
    private static Connection lockingConnection(LockedJobRow locked, Map<String, Set<String>> seen) {
        Map<String, Object> row = new HashMap<>();
        for (String column : JobRowInsert.COLUMNS.split(",")) {
            row.put(column.trim(), null);
        }
        row.putAll(Map.of("shard", 0, "fire_at", 1_000L, "due_at", 1_000L, "budget_base", 0, "max_attempts", 1));
        row.putAll(Map.of("timeout_ms", 1_000L, "payload", "{}", "created_at", 0L, "updated_at", 0L));
        row.putAll(Map.of("id", locked.id, "app", locked.app, "service", locked.service, "state", locked.state));
        row.putAll(Map.of("attempts", locked.attempts, "owner_node", locked.ownerNode, "version", locked.version));
        return proxy(Connection.class, (c, method, args) -> {
            if (method.getDeclaringClass() == Object.class) {
                return objectMethod(c, method, args);
            }
            if (!method.getName().equals("prepareStatement")) {
                return zero(method.getReturnType());
            }
            String sql = String.valueOf(args[0]);
            if (sql.startsWith("INSERT INTO " + BACKLOG + " (")) {
                return recordingBacklogInsert(
                        sql, seen.computeIfAbsent("BacklogRowInsert#state", k -> new TreeSet<>()));
            }
            if (!sql.startsWith("SELECT ")) {
                return proxy(
                        PreparedStatement.class,
                        (ps, m, a) -> m.getDeclaringClass() == Object.class
                                ? objectMethod(ps, m, a)
                                : zero(m.getReturnType()));
            }
            boolean lock = sql.endsWith("FOR UPDATE");
            List<String> selected = Stream.of(sql.substring("SELECT ".length(), sql.indexOf(" FROM "))
                            .split(","))
                    .map(String::trim)
                    .toList();
            return proxy(PreparedStatement.class, (ps, m, a) -> {
                if (m.getDeclaringClass() == Object.class) {
                    return objectMethod(ps, m, a);
                }
                if (!m.getName().equals("executeQuery")) {
                    return zero(m.getReturnType());
                }
                boolean[] read = {!lock};
                Object[] last = {null};
                return proxy(ResultSet.class, (rs, rm, ra) -> {
                    if (rm.getName().equals("next")) {
                        boolean more = !read[0];
                        read[0] = true;
                        return more;
                    }
                    if (rm.getName().equals("wasNull")) {
                        return last[0] == null;
                    }
                    if (!rm.getName().startsWith("get") || ra == null || !(ra[0] instanceof Integer column)) {
                        return rm.getDeclaringClass() == Object.class
                                ? objectMethod(rs, rm, ra)
                                : zero(rm.getReturnType());
                    }
                    last[0] = row.get(selected.get(column - 1));
                    return switch (rm.getName()) {
                        case "getLong" -> last[0] == null ? 0L : ((Number) last[0]).longValue();
                        case "getInt" -> last[0] == null ? 0 : ((Number) last[0]).intValue();
                        case "getString" -> (String) last[0];
                        default -> zero(rm.getReturnType());
                    };
                });
            });
        });
    }

    /** A statement inserting into the backlog that adds to {@code states} each value given for its state column. */
    private static PreparedStatement recordingBacklogInsert(String sql, Set<String> states) {
        List<String> columns = Stream.of(
                        sql.substring(sql.indexOf('(') + 1, sql.indexOf(')')).split(","))
                .map(String::trim)
                .toList();
        int state = columns.indexOf("state");
        assertThat(state).as("the state column of " + sql).isNotNegative();
        return proxy(PreparedStatement.class, (ps, m, a) -> {
            if (m.getDeclaringClass() == Object.class) {
                return objectMethod(ps, m, a);
            }
            if (m.getName().equals("setString") && ((Integer) a[0] - 1) % columns.size() == state) {
                states.add((String) a[1]);
            }
            return zero(m.getReturnType());
        });
    }

    private static <T> T proxy(Class<T> type, InvocationHandler handler) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler));
    }

    private static Object objectMethod(Object proxy, Method method, Object[] args) {
        return switch (method.getName()) {
            case "equals" -> proxy == args[0];
            case "hashCode" -> System.identityHashCode(proxy);
            default -> "recording " + proxy.getClass().getInterfaces()[0].getSimpleName();
        };
    }

    private static Object zero(Class<?> type) {
        if (type == int.class) {
            return 0;
        }
        if (type == long.class) {
            return 0L;
        }
        if (type == boolean.class) {
            return false;
        }
        if (List.class.isAssignableFrom(type) || type == Collection.class) {
            return List.of();
        }
        return null;
    }
}
