package dev.hourglass.node.flow;

import dev.hourglass.node.testing.NodeFixture;

/** {@link FlowControlContract} on a standalone node: embedded H2 and ZooKeeper. */
class StandaloneFlowControlIT extends FlowControlContract {
    @Override
    protected NodeFixture start() throws Exception {
        return NodeFixture.standalone(c -> c.dubbo.enabled = false); // HTTP and PULL services only
    }

    /** The fixture starts each node on a data directory of its own. */
    @Override
    protected boolean restartable() {
        return false;
    }
}
