package dev.hourglass.node.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class BuildInfoTest {
    @Test
    void theVersionIsTheBuildsAndTheNodeSaysIt() {
        // the build passes its version to the tests (surefire's systemPropertyVariables)
        String built = System.getProperty("hourglass.build.version");
        assertThat(built).as("the build's version").isNotBlank();
        assertThat(BuildInfo.version()).isEqualTo(built);
        assertThat(HourglassNode.VERSION).isEqualTo(built);

        PrintStream out = System.out;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            Main.main(new String[] {"--version"});
        } finally {
            System.setOut(out);
        }
        assertThat(printed.toString(StandardCharsets.UTF_8).trim()).isEqualTo("hourglass-node " + built);
    }
}
