package dev.hourglass.node.schedule;

import dev.hourglass.node.testing.NodeFixture;
import dev.hourglass.node.testing.RunsPaired;

/** {@link ScheduleContract} on MariaDB. */
@RunsPaired
class MariaDbScheduleIT extends ScheduleContract {
    @Override
    protected NodeFixture start() throws Exception {
        return new NodeFixture(c -> c.dubbo.enabled = false); // HTTP only
    }
}
