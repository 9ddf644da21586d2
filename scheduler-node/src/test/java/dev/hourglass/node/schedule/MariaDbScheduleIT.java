package dev.hourglass.node.schedule;

import dev.hourglass.node.testing.NodeFixture;

/** {@link ScheduleContract} on MariaDB. */
class MariaDbScheduleIT extends ScheduleContract {
    @Override
    protected NodeFixture start() throws Exception {
        return new NodeFixture();
    }
}
