package dev.hourglass.node.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The node's logback.xml in both formats, each in a JVM of its own (a JVM configures Logback
 * once): TEXT lines start with an ISO-8601 time with its zone; HOURGLASS_LOG_FORMAT=JSON makes
 * every line a JSON object with the MDC.
 */
class LogFormatTest {
    /** Logs one line with an MDC entry through the node's configuration, after naming the nodes given. */
    public static void main(String[] args) {
        for (String node : args) {
            NodeNameInLogs.name(node);
        }
        org.slf4j.MDC.put("jobId", "42");
        org.slf4j.LoggerFactory.getLogger("dev.hourglass.node.test").info("hello {}", "world");
    }

    @Test
    void textLinesCarryAnIsoTimeWithItsZoneAndTheMdc() throws Exception {
        String line = run(List.of(), List.of("node-7")).get(0);
        assertThat(line)
                .matches(
                        "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}(Z|[+-]\\d\\d:\\d\\d) INFO  node-7 \\[main] .*")
                .contains("hello world")
                .contains("jobId=42");
    }

    /** Two nodes in one JVM (the tests' clusters): a line could be either's, so it names none. */
    @Test
    void textLinesNameNoNodeWhenTheJvmRunsTwoOrNone() throws Exception {
        assertThat(run(List.of(), List.of("node-7", "node-8")).get(0)).contains(" INFO  [main] ");
        assertThat(run(List.of(), List.of()).get(0)).contains(" INFO  [main] ");
    }

    @Test
    void jsonLinesAreObjectsWithTheMessageAndTheMdc() throws Exception {
        JsonNode event = new ObjectMapper()
                .readTree(run(List.of("-DHOURGLASS_LOG_FORMAT=JSON"), List.of("node-7"))
                        .get(0));
        assertThat(event.get("level").asText()).isEqualTo("INFO");
        assertThat(event.get("formattedMessage").asText()).isEqualTo("hello world");
        assertThat(event.get("mdc").get("jobId").asText()).isEqualTo("42");
        assertThat(event.at("/context/properties/node").asText())
                .as(event.toString())
                .isEqualTo("node-7");
        assertThat(event.get("timestamp").asLong()).isGreaterThan(1_700_000_000_000L);
    }

    private static List<String> run(List<String> options, List<String> nodes) throws Exception {
        List<String> command = new java.util.ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(options);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(LogFormatTest.class.getName());
        command.addAll(nodes);
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        return out.lines().filter(l -> l.contains("hello")).toList();
    }
}
