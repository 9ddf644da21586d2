package dev.hourglass.node.store.mybatis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one transaction changes in the live-job counts, summed per (app, service, state) and
 * written as a few {@code hg_live_count_delta} rows in that same transaction (V5__live_counts.sql):
 * a claim of 500 jobs of one service is two rows, not a thousand. Not thread-safe; one per
 * transaction attempt (a retried transaction starts a new one).
 */
final class LiveCountDeltas {
    private final Map<String, CountDeltaRow> byKey = new TreeMap<>();

    /** A live job of {@code app}/{@code service} appeared in {@code state}. */
    void added(String app, String service, String state) {
        add(app, service, state, 1);
    }

    /** A live job of {@code app}/{@code service} in {@code state} left the live table. */
    void removed(String app, String service, String state) {
        add(app, service, state, -1);
    }

    /** A live job moved from one state to another. */
    void moved(String app, String service, String from, String to) {
        removed(app, service, from);
        added(app, service, to);
    }

    void add(String app, String service, String state, long delta) {
        // NUL cannot appear in a name, so the key is unambiguous
        byKey.computeIfAbsent(app + '\0' + service + '\0' + state, k -> new CountDeltaRow(app, service, state)).delta +=
                delta;
    }

    /** The sums that are not zero, in (app, service, state) order. */
    List<CountDeltaRow> nonZero() {
        List<CountDeltaRow> rows = new ArrayList<>(byKey.size());
        for (CountDeltaRow r : byKey.values()) {
            if (r.delta != 0) {
                rows.add(r);
            }
        }
        return rows;
    }

    /** Appends the non-zero sums; call last, after the statements they describe. */
    void writeTo(JobMapper m) {
        List<CountDeltaRow> rows = nonZero();
        if (!rows.isEmpty()) {
            m.appendCountDeltas(rows);
        }
    }
}
