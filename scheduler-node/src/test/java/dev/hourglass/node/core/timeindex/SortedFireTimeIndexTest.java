package dev.hourglass.node.core.timeindex;

class SortedFireTimeIndexTest extends FireTimeIndexContract {
    @Override
    protected FireTimeIndex create(int capacity, Runnable onEarlierHead) {
        return new SortedFireTimeIndex(capacity, onEarlierHead);
    }
}
