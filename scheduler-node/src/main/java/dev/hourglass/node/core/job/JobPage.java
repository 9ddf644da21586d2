package dev.hourglass.node.core.job;

import java.util.List;

/** One page of a job search; {@code nextCursor} is null on the last page. */
public record JobPage(List<Job> items, String nextCursor) {}
