package dev.hourglass.node.store.mybatis;

import java.sql.SQLException;

/** Recognises a unique-key violation through MyBatis' wrapping, on every supported driver. */
final class Duplicates {
    private Duplicates() {}

    static boolean isDuplicateKey(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof SQLException sql
                    && sql.getSQLState() != null
                    && sql.getSQLState().startsWith("23")) {
                return true;
            }
        }
        return false;
    }
}
