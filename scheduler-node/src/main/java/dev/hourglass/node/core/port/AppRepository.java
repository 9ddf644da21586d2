package dev.hourglass.node.core.port;

import dev.hourglass.node.core.service.TargetGrants;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Storage port for apps and their tokens. Tokens are stored only as hashes. */
public interface AppRepository {
    /** @return false when the app exists already */
    boolean createApp(String name, long now);

    List<String> listApps();

    boolean exists(String app);

    void addToken(String app, String tokenId, String tokenHash, long now);

    /** @return false when no such unrevoked token of that app */
    boolean revokeToken(String app, String tokenId, long now);

    /** The app owning an unrevoked token with this hash. */
    Optional<String> appOfToken(String tokenHash);

    /** The delivery targets granted to an app; {@link TargetGrants#NONE} when none. */
    TargetGrants targets(String app);

    /** Replaces the delivery targets granted to an app, in one transaction. */
    void replaceTargets(String app, TargetGrants grants);

    /** The grants of every app that has any. */
    Map<String, TargetGrants> allTargets();

    /** Sets (null: clears) the app's default alert webhook; false if there is no such app. */
    boolean setAlertWebhook(String app, String url);

    /** The app's default alert webhook, if it has one. */
    Optional<String> alertWebhook(String app);

    /** Every app's default alert webhook, by app (apps without one are absent). */
    Map<String, String> alertWebhooks();
}
