package dev.hourglass.node.schedule;

import dev.hourglass.node.testing.NodeFixture;
import dev.hourglass.node.testing.RunsPaired;

/** {@link ScheduleContract} on a standalone node: embedded H2 and ZooKeeper. */
@RunsPaired
class StandaloneScheduleIT extends ScheduleContract {
    @Override
    protected NodeFixture start() throws Exception {
        return NodeFixture.standalone(c -> c.dubbo.enabled = false); // HTTP only
    }
}
