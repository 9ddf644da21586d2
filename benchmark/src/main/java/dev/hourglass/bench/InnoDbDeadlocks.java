package dev.hourglass.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The database's deadlocks, over JDBC (the --jdbc URL benchmark/run.sh passes): how many InnoDB
 * has detected so far ({@code Innodb_deadlocks}), and its account of the latest. A node retries
 * some deadlocks unseen, so the count says what a workload cost beyond its answers; without a URL,
 * or on a database that does not say, the count is -1.
 */
final class InnoDbDeadlocks {
    private final String jdbc;

    InnoDbDeadlocks(String jdbc) {
        this.jdbc = jdbc;
    }

    long count() {
        if (jdbc == null) {
            return -1;
        }
        try (Connection c = DriverManager.getConnection(jdbc, "root", "");
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SHOW GLOBAL STATUS LIKE 'Innodb_deadlocks'")) {
            return rs.next() ? rs.getLong(2) : -1;
        } catch (SQLException e) {
            return -1;
        }
    }

    /**
     * The "LATEST DETECTED DEADLOCK" section of SHOW ENGINE INNODB STATUS, or "" when there is none:
     * the transactions, their statements (cut at 300 characters: an id list is long) and the locks
     * they waited for, with the first field (the primary key) of each locked record, not the rest;
     * 6,000 characters at most.
     */
    String latest() {
        if (jdbc == null) {
            return "";
        }
        try (Connection c = DriverManager.getConnection(jdbc, "root", "");
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SHOW ENGINE INNODB STATUS")) {
            String status = rs.next() ? rs.getString("Status") : "";
            int start = status.indexOf("LATEST DETECTED DEADLOCK");
            if (start < 0) {
                return "";
            }
            int end = status.indexOf("------------\nTRANSACTIONS", start);
            StringBuilder out = new StringBuilder();
            for (String line :
                    status.substring(start, end < 0 ? status.length() : end).split("\n")) {
                if (line.isBlank() || line.startsWith("Record lock, heap no") || line.matches("^ [1-9]\\d*: .*")) {
                    continue;
                }
                out.append(line.length() > 300 ? line.substring(0, 300) + "…" : line)
                        .append('\n');
            }
            return out.length() > 6_000 ? out.substring(0, 6_000) + "…\n" : out.toString();
        } catch (SQLException e) {
            return "unreadable: " + e;
        }
    }
}
