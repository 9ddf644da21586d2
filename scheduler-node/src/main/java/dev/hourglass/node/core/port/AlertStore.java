package dev.hourglass.node.core.port;

import dev.hourglass.node.core.alert.Alert;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The alerts' storage and the measures alert policies are judged on, read from the job tables. */
public interface AlertStore {

    /** Jobs of the service that ended FAILED at or after {@code since}. */
    long failedJobsSince(String app, String service, long since);

    /**
     * How many of the service's latest finished attempts failed before the latest success, reading
     * at most {@code upTo} of them.
     */
    long failedStreak(String app, String service, int upTo);

    /**
     * The oldest fire time among waiting (DELAYED) jobs due before {@code dueBefore}, per service
     * key ({@code app/service}); reads the oldest {@code perShard} such jobs of each of the
     * {@code shards} shards, through the due-time index.
     */
    Overdue oldestOverdue(int shards, long dueBefore, int perShard);

    /**
     * Overdue services found; {@code complete} is false when a shard had more overdue jobs than
     * were read, so a service missing from {@code oldest} may still have some.
     */
    record Overdue(Map<String, Long> oldest, boolean complete) {}

    /** Every alert now FIRING. */
    List<Alert> firing();

    /** Opens a FIRING alert; false if one is open already for its app, service and kind. */
    boolean open(Alert alert);

    /** Resolves a FIRING alert; a webhook it has is owed the RESOLVED notification from now. */
    void resolve(long id, long now);

    /** Alerts whose webhook is owed their current state, due by {@code now}; at most {@code limit}. */
    List<Alert> owedNotifications(long now, int limit);

    /**
     * Takes the notification of an alert for one sender: true if {@code next_notify_at} was still
     * {@code expected} (no other node took it), which is now {@code until}.
     */
    boolean takeNotification(long id, long expected, long until);

    /**
     * The webhook accepted {@code state}. If that is still the alert's state nothing more is owed;
     * if the alert changed meanwhile, its current state is owed again from {@code now} (even if
     * another node sent it already: it must be the last state the webhook hears).
     */
    void notified(long id, Alert.State state, long now);

    /**
     * A notification of {@code state} failed; the next try at {@code nextAt} (unless the state
     * changed meanwhile: the new state's notification is then owed at once).
     */
    void notifyFailed(long id, Alert.State state, int attempts, long nextAt, String error, long now);

    /** Alerts matching the query, newest first, one page. */
    AlertPage search(AlertQuery query);

    /** Marks an alert acknowledged by {@code by}; empty if there is no such alert of {@code app} (null: any). */
    Optional<Alert> acknowledge(long id, String app, String by, long now);

    /** A search: every filter null means any; {@code beforeId} continues a previous page. */
    record AlertQuery(
            String app, String service, Alert.State state, Long firedFrom, Long firedTo, int limit, Long beforeId) {}

    record AlertPage(List<Alert> items, Long nextBeforeId) {}
}
