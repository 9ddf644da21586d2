package dev.hourglass.node.background;

import java.util.concurrent.atomic.AtomicReference;

/**
 * LATENT → STARTED → CLOSED, the lifecycle of every long-lived part (Curator's recipes): a second
 * start, or a start after the close, is an error; closing is idempotent and allowed from LATENT (a
 * node that fails half-way through its start closes what it built).
 */
public final class Lifecycle {
    public enum State {
        LATENT,
        STARTED,
        CLOSED
    }

    private final String name;
    private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);

    public Lifecycle(String name) {
        this.name = name;
    }

    /** LATENT → STARTED; throws otherwise. */
    public void start() {
        if (!state.compareAndSet(State.LATENT, State.STARTED)) {
            throw new IllegalStateException(name + " cannot be started: it is " + state.get());
        }
    }

    /** → CLOSED; returns whether this call closed it (false: it was closed already). */
    public boolean close() {
        return state.getAndSet(State.CLOSED) != State.CLOSED;
    }

    public State state() {
        return state.get();
    }

    public boolean isStarted() {
        return state.get() == State.STARTED;
    }
}
