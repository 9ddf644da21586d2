package dev.hourglass.node.core.service;

import dev.hourglass.api.HourglassException;
import java.util.List;
import java.util.TreeSet;

/**
 * The delivery targets the admin grants an app beyond those named after it ({@link TargetNames}):
 * Kafka topic patterns, Dubbo group patterns, and whether it may call Dubbo's default group (a
 * DUBBO service without {@code dubboGroup}, found through the registry).
 *
 * <p>A pattern is a topic or group name in which {@code *} stands for any run of characters,
 * none included: {@code billing.*} grants {@code billing.invoices} and {@code billing.}, not
 * {@code billing}; {@code *} alone grants every name (for a platform app that serves everyone).
 * Patterns use the characters of the names they match ({@code [A-Za-z0-9._-]}) plus {@code *}:
 * up to 249 characters for topics (Kafka's limit), 128 for groups.
 *
 * @param kafkaTopics sorted, without duplicates
 * @param dubboGroups sorted, without duplicates
 */
public record TargetGrants(List<String> kafkaTopics, List<String> dubboGroups, boolean dubboDefaultGroup) {
    public static final TargetGrants NONE = new TargetGrants(List.of(), List.of(), false);

    /** Most patterns in one list. */
    public static final int MAX_PATTERNS = 100;

    public TargetGrants {
        kafkaTopics = List.copyOf(kafkaTopics);
        dubboGroups = List.copyOf(dubboGroups);
    }

    /**
     * The admin's input, checked: INVALID_ARGUMENT naming the list ({@code kafkaTopics},
     * {@code dubboGroups}) of the first bad pattern. Null lists are empty.
     */
    public static TargetGrants of(List<String> kafkaTopics, List<String> dubboGroups, boolean dubboDefaultGroup) {
        return new TargetGrants(
                checked("kafkaTopics", kafkaTopics, 249), checked("dubboGroups", dubboGroups, 128), dubboDefaultGroup);
    }

    private static List<String> checked(String field, List<String> patterns, int maxLength) {
        if (patterns == null) {
            return List.of();
        }
        if (patterns.size() > MAX_PATTERNS) {
            throw HourglassException.invalid(field, field + " holds at most " + MAX_PATTERNS + " patterns");
        }
        TreeSet<String> sorted = new TreeSet<>();
        for (String p : patterns) {
            if (p == null || !p.matches("[A-Za-z0-9._*-]{1," + maxLength + "}")) {
                throw HourglassException.invalid(
                        field,
                        field + ": '" + p + "' is not a pattern: 1.." + maxLength
                                + " characters of [A-Za-z0-9._-], * for any run of them");
            }
            sorted.add(p);
        }
        return List.copyOf(sorted);
    }

    public boolean grantsTopic(String topic) {
        return kafkaTopics.stream().anyMatch(p -> matches(p, topic));
    }

    /** @param group null for Dubbo's default group, which only {@code dubboDefaultGroup} grants */
    public boolean grantsGroup(String group) {
        return group == null ? dubboDefaultGroup : dubboGroups.stream().anyMatch(p -> matches(p, group));
    }

    /**
     * Glob match, {@code *} for any run of characters, every other character literal. Greedy with
     * a return to the last star: O(pattern × name) at worst, never exponential like a regex
     * with many {@code .*}.
     */
    public static boolean matches(String pattern, String name) {
        int p = 0;
        int n = 0;
        int star = -1;
        int afterStar = 0;
        while (n < name.length()) {
            if (p < pattern.length() && pattern.charAt(p) == '*') {
                star = p++;
                afterStar = n;
            } else if (p < pattern.length() && pattern.charAt(p) == name.charAt(n)) {
                p++;
                n++;
            } else if (star >= 0) {
                p = star + 1;
                n = ++afterStar;
            } else {
                return false;
            }
        }
        while (p < pattern.length() && pattern.charAt(p) == '*') {
            p++;
        }
        return p == pattern.length();
    }
}
