package dev.hourglass.node.store.mybatis;

/** Where one shard's part of a due-jobs read starts (exclusive), as MyBatis parameters. */
public record ShardCursor(int shard, long afterDue, long afterId) {
    public int getShard() {
        return shard;
    }

    public long getAfterDue() {
        return afterDue;
    }

    public long getAfterId() {
        return afterId;
    }
}
