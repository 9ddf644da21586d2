package dev.hourglass.node.boot;

import dev.hourglass.node.cluster.CuratorCoordinator;
import dev.hourglass.node.core.job.AttemptHolderUnreachableException;
import dev.hourglass.node.core.port.AttemptHolders;
import dev.hourglass.node.firing.FiringEngine;
import java.util.Optional;

/**
 * {@link AttemptHolders} for a node in a cluster: an attempt this node holds is withheld in its
 * own engine; another node is asked through ZooKeeper and waited for up to {@value #ANSWER_WAIT_MS}
 * ms. A node that does not answer and is no longer a member cannot send any more (its shard lease
 * lapsed before its session could end): its attempt counts as unknown. One that is still a member
 * may still send it: the cancel fails, changing nothing.
 */
final class ClusterAttemptHolders implements AttemptHolders {
    /** Long enough for a busy node and ZooKeeper's writes; short enough for a caller to retry. */
    static final long ANSWER_WAIT_MS = 2_000;

    private final String self;
    private final FiringEngine engine;
    private volatile CuratorCoordinator coordinator;

    ClusterAttemptHolders(String self, FiringEngine engine) {
        this.self = self;
        this.engine = engine;
    }

    /** Set once the coordinator exists (before the node takes requests). */
    void reachOthersThrough(CuratorCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public Answer withhold(String node, long jobId, int attempt) {
        if (self.equals(node)) {
            return engine.withhold(jobId, attempt);
        }
        CuratorCoordinator c = coordinator;
        if (c == null) {
            throw new AttemptHolderUnreachableException(node, jobId, attempt, 0);
        }
        Optional<Answer> answer = c.askToWithhold(node, jobId, attempt, ANSWER_WAIT_MS);
        if (answer.isPresent()) {
            return answer.get();
        }
        if (c.isMember(node)) {
            throw new AttemptHolderUnreachableException(node, jobId, attempt, ANSWER_WAIT_MS);
        }
        return Answer.UNKNOWN;
    }
}
