package dev.hourglass.node.pull;

import dev.hourglass.node.testing.NodeFixture;

/** {@link PullContract} on a standalone node: embedded H2 and ZooKeeper, as a new user runs it. */
class StandalonePullIT extends PullContract {
    @Override
    protected NodeFixture start() throws Exception {
        return NodeFixture.standalone(PullContract::tune);
    }
}
