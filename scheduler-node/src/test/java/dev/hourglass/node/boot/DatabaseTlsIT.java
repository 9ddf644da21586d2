package dev.hourglass.node.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hourglass.node.config.ConfigException;
import dev.hourglass.node.config.NodeConfig;
import dev.hourglass.node.testing.EmbeddedMariaDb;
import dev.hourglass.node.testing.RunsAlongside;
import dev.hourglass.node.testing.TestNodes;
import org.junit.jupiter.api.Test;

/**
 * The README's MariaDB URL against a server without TLS (the embedded MariaDB runs with
 * --skip-ssl, as Debian's MariaDB 10.11 does out of the box): MariaDB Connector/J 4 requires TLS by
 * default, so the start fails — with what to change, not with the driver's words alone.
 */
@RunsAlongside
class DatabaseTlsIT {

    @Test
    void aServerWithoutTlsStopsTheStartSayingHowToConnect() {
        String withSslModeDisable = EmbeddedMariaDb.newDatabase();
        String readmeUrl = withSslModeDisable.replace("?sslMode=disable", "");
        assertThat(readmeUrl).doesNotContain("sslMode");
        NodeConfig config = TestNodes.config(readmeUrl);
        assertThatThrownBy(() -> HourglassNode.start(config))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("database.url")
                .hasMessageContaining("does not offer TLS")
                .hasMessageContaining("?sslMode=disable")
                .hasMessageContaining("HOURGLASS_DB_URL")
                .rootCause()
                .as("the driver's own words stay in the cause")
                .hasMessageContaining("Trying to connect with ssl, but ssl not enabled in the server");
    }
}
