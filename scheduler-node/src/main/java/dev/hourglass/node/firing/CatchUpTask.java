package dev.hourglass.node.firing;

import dev.hourglass.node.background.PeriodicTask;

/** Looks again behind the loader's cursor for jobs made due there (retries, give-backs, a reschedule through another node), so none waits for a full reload. */
final class CatchUpTask implements PeriodicTask {
    private final WindowLoader loader;

    CatchUpTask(WindowLoader loader) {
        this.loader = loader;
    }

    @Override
    public String name() {
        return "catch-up sweep";
    }

    @Override
    public void run() {
        loader.catchUp();
    }
}
