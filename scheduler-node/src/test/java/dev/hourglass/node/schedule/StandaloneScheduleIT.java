package dev.hourglass.node.schedule;

import dev.hourglass.node.testing.NodeFixture;

/** {@link ScheduleContract} on a standalone node: embedded H2 and ZooKeeper. */
class StandaloneScheduleIT extends ScheduleContract {
    @Override
    protected NodeFixture start() throws Exception {
        return NodeFixture.standalone();
    }
}
