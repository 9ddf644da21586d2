package dev.hourglass.node.store.mybatis;

/** Bound parameters of a job search. */
public class SearchParams {
    public String app;
    public String bizKey;
    /** A LIKE pattern (escape character '!'): the prefix with its LIKE wildcards escaped, then %. */
    public String bizKeyLike;

    public String state;
    public String service;
    public Long fireFrom;
    public Long fireTo;
    public Long afterId;
    /**
     * With a fire-time range the search walks the fire-time index: ordered by (fire_at, id), and
     * the page after ({@code afterFireAt}, {@code afterId}).
     */
    public boolean byFireTime;

    public Long afterFireAt;
    /**
     * Every shard, for a search of RUNNING jobs: {@code shard IN (...) AND state = 'RUNNING'} is a
     * set of ranges of the due-time index (shard, state, due_at), so the few RUNNING jobs among
     * millions of DELAYED ones are found there instead of by reading the table in id order.
     */
    public java.util.List<Integer> shards;

    public int limit;
}
