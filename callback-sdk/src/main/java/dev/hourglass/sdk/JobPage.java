package dev.hourglass.sdk;

import dev.hourglass.api.JobView;
import java.util.List;

/**
 * One page of a job search.
 *
 * @param items the jobs of this page
 * @param nextCursor pass it to {@link JobSearch#cursor} (with the same filters) for the next page;
 *     null when this is the last one
 */
public record JobPage(List<JobView> items, String nextCursor) {
    public JobPage {
        items = List.copyOf(items);
    }

    /** Whether another page follows. */
    public boolean hasNext() {
        return nextCursor != null;
    }
}
