package dev.hourglass.node.core.port;

import java.util.List;

/** Where bulk actions are recorded; never edited, listed newest first. */
public interface AuditLog {
    /**
     * One recorded action; {@code request} is the request as JSON text (its validated fields);
     * {@code error} is why it stopped part-way, null when it ran to its end.
     */
    record Entry(
            long id,
            long at,
            String actor,
            String app,
            String action,
            String request,
            long matched,
            long changed,
            long skipped,
            String error) {}

    /** Records an entry (its id is ignored); returns the id given to it. */
    long record(Entry entry);

    /** Entries of {@code app} (null: every app), newest first, ids below {@code beforeId} if given. */
    List<Entry> list(String app, int limit, Long beforeId);
}
