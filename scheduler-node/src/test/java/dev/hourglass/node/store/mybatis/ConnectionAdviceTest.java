package dev.hourglass.node.store.mybatis;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;

class ConnectionAdviceTest {

    @Test
    void aTlsMismatchNamesTheSettingOfEachDriver() {
        RuntimeException mariadb = new RuntimeException(
                "Failed to initialize pool",
                new SQLException("Trying to connect with ssl, but ssl not enabled in the server"));
        assertThat(ConnectionAdvice.forFailure(mariadb, "jdbc:mariadb://db.internal:3306/hourglass"))
                .hasValueSatisfying(advice -> assertThat(advice)
                        .contains("db.internal:3306")
                        .contains("MariaDB Connector/J 4 requires TLS by default")
                        .contains("?sslMode=disable"));
        RuntimeException mysql = new RuntimeException(new SQLException("Server doesn't support SSL"));
        assertThat(ConnectionAdvice.forFailure(mysql, "jdbc:mysql://db:3306/hourglass?sslMode=REQUIRED"))
                .hasValueSatisfying(advice -> assertThat(advice).contains("?sslMode=DISABLED"));
    }

    @Test
    void anUntrustedCertificateSaysHowToTrustIt() {
        RuntimeException e = new RuntimeException(new SQLException(
                "PKIX path building failed: unable to find valid certification path to requested target"));
        assertThat(ConnectionAdvice.forFailure(e, "jdbc:mariadb://db:3306/hourglass"))
                .hasValueSatisfying(advice -> assertThat(advice).contains("serverSslCert="));
    }

    @Test
    void otherFailuresAreLeftAsTheyAre() {
        assertThat(ConnectionAdvice.forFailure(
                        new RuntimeException(new SQLException("Access denied for user 'x'")),
                        "jdbc:mariadb://db:3306/hourglass"))
                .isEmpty();
    }
}
