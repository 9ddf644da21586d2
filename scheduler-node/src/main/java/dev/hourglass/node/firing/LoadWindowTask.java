package dev.hourglass.node.firing;

import dev.hourglass.node.background.PeriodicTask;

/** Reads the owned shards' jobs due within the window into memory (docs/design.md, the fire-time index). */
final class LoadWindowTask implements PeriodicTask {
    private final WindowLoader loader;

    LoadWindowTask(WindowLoader loader) {
        this.loader = loader;
    }

    @Override
    public String name() {
        return "loading the window";
    }

    @Override
    public void run() {
        loader.extend();
    }
}
