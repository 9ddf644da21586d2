package dev.hourglass.node.core.service;

import java.util.Set;

/**
 * Which app a Kafka topic or Dubbo group is named after: the convention by which, with no grant
 * from the admin, an app reaches its own consumers and no other app's.
 *
 * <p>A name is named after app {@code A} when it equals {@code A} or starts with {@code A.} or
 * {@code A-}. App names may themselves contain {@code .} and {@code -}, so a name can fit several
 * apps: it then belongs to the longest. Example with apps {@code shop} and {@code shop-eu}:
 * {@code shop.orders} and {@code shop-europe} belong to {@code shop}; {@code shop-eu} and
 * {@code shop-eu.orders} belong to {@code shop-eu}, and so {@code shop} does not reach them.
 * Pure and thread-safe.
 */
public final class TargetNames {
    private TargetNames() {}

    /** The app {@code name} is named after, among {@code apps}; null when none. */
    public static String ownerOf(String name, Set<String> apps) {
        if (apps.contains(name)) {
            return name; // the longest possible prefix is the whole name
        }
        for (int i = name.length() - 1; i > 0; i--) {
            char c = name.charAt(i);
            if ((c == '.' || c == '-') && apps.contains(name.substring(0, i))) {
                return name.substring(0, i);
            }
        }
        return null;
    }
}
