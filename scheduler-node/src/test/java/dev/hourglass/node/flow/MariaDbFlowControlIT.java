package dev.hourglass.node.flow;

import dev.hourglass.node.testing.NodeFixture;

/** {@link FlowControlContract} on MariaDB, with a restart. */
class MariaDbFlowControlIT extends FlowControlContract {
    @Override
    protected NodeFixture start() throws Exception {
        return new NodeFixture(c -> c.dubbo.enabled = false); // HTTP and PULL services only
    }

    @Override
    protected boolean restartable() {
        return true;
    }
}
