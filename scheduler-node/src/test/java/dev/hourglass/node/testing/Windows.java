package dev.hourglass.node.testing;

import java.util.List;

/** Counts over sliding windows of moments (epoch ms), for tests of rate limits. */
public final class Windows {
    private Windows() {}

    /** The most of {@code sortedAt} within any window of {@code windowMs} (each window starts at one of them). */
    public static int mostWithin(List<Long> sortedAt, long windowMs) {
        int most = 0;
        int j = 0;
        for (int i = 0; i < sortedAt.size(); i++) {
            while (j < sortedAt.size() && sortedAt.get(j) < sortedAt.get(i) + windowMs) {
                j++;
            }
            most = Math.max(most, j - i);
        }
        return most;
    }
}
