package dev.hourglass.node.store.mybatis;

import java.util.Collection;
import java.util.StringJoiner;

/**
 * A list of job ids rendered once as SQL text ({@code 1,2,3}) for {@code id IN (${ids.sql})}.
 * Why not {@code <foreach>}: MyBatis evaluates an OGNL expression and binds a parameter per
 * element, which for the 500-id lists of every claim and result write was a visible share of the
 * node's CPU. Safe as text because it can only hold {@code long}s.
 */
public final class IdList {
    private final String sql;

    private IdList(String sql) {
        this.sql = sql;
    }

    public static IdList of(Collection<Long> ids) {
        if (ids.isEmpty()) {
            throw new IllegalArgumentException("an IN list needs at least one id");
        }
        StringJoiner joined = new StringJoiner(",");
        for (long id : ids) {
            joined.add(Long.toString(id));
        }
        return new IdList(joined.toString());
    }

    public String getSql() {
        return sql;
    }
}
