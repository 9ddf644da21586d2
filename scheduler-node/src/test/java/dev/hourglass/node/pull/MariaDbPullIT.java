package dev.hourglass.node.pull;

import dev.hourglass.node.testing.NodeFixture;

/** {@link PullContract} on a node on MariaDB. */
class MariaDbPullIT extends PullContract {
    @Override
    protected NodeFixture start() throws Exception {
        return new NodeFixture(PullContract::tune);
    }
}
