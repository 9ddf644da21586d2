package dev.hourglass.node.pull;

import dev.hourglass.node.core.service.Protocol;
import dev.hourglass.node.core.service.ServiceDefinition;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Told every set of services the catalog loads, names the PULL services that were paused in the
 * last set and are not now: their waiting consumers are served at once. Called on the catalog's
 * refreshing thread, one set at a time.
 */
public final class ResumeWatch implements Consumer<Map<String, ServiceDefinition>> {
    private final Consumer<Collection<String>> resumed;
    private Set<String> pausedBefore = Set.of();

    public ResumeWatch(Consumer<Collection<String>> resumed) {
        this.resumed = resumed;
    }

    @Override
    public synchronized void accept(Map<String, ServiceDefinition> services) {
        Set<String> pausedNow = new HashSet<>();
        List<String> resumedNow = new ArrayList<>();
        services.forEach((key, s) -> {
            if (s.protocol() != Protocol.PULL) {
                return;
            }
            if (s.paused()) {
                pausedNow.add(key);
            } else if (pausedBefore.contains(key)) {
                resumedNow.add(key);
            }
        });
        pausedBefore = pausedNow;
        if (!resumedNow.isEmpty()) {
            resumed.accept(resumedNow);
        }
    }
}
