package dev.hourglass.node.firing;

import dev.hourglass.node.background.TaskScheduler;
import dev.hourglass.node.background.ThreadedScheduler;
import java.time.Clock;
import java.util.List;

/**
 * Where the engine's work runs. Each role has a scheduler of its own so that none waits behind
 * another: a slow claim never delays a send at its fire time, a result write never delays a
 * claim. The node builds {@link #threaded}; a unit test passes one manual scheduler for every role
 * ({@link #allOn}) and moves its clock. The engine starts them with itself and closes them, in
 * order, when it stops.
 *
 * @param firing the claim rounds (one thread: rounds never overlap)
 * @param claims the claim transactions ({@code engine.claimThreads} threads)
 * @param sendTimer releases claimed-ahead attempts at their fire time; watches for silent sends
 * @param fence the sender's give-backs and deadline renewals
 * @param results the result writer
 * @param housekeeping the loader, the catch-up and timeout sweeps, the service refresh
 */
public record EngineSchedulers(
        TaskScheduler firing,
        TaskScheduler claims,
        TaskScheduler sendTimer,
        TaskScheduler fence,
        TaskScheduler results,
        TaskScheduler housekeeping) {

    /** Threads named {@code hourglass-*}, started with the engine. */
    public static EngineSchedulers threaded(Clock clock, int claimThreads) {
        return new EngineSchedulers(
                new ThreadedScheduler("hourglass-firing", 1, clock),
                new ThreadedScheduler("hourglass-claim", claimThreads, clock),
                new ThreadedScheduler("hourglass-send-timer", 1, clock),
                new ThreadedScheduler("hourglass-send-fence", 1, clock),
                new ThreadedScheduler("hourglass-results", 1, clock),
                new ThreadedScheduler("hourglass-housekeeping", 1, clock));
    }

    /** Every role on one scheduler (a manual one in unit tests: everything on the test's thread). */
    public static EngineSchedulers allOn(TaskScheduler scheduler) {
        return new EngineSchedulers(scheduler, scheduler, scheduler, scheduler, scheduler, scheduler);
    }

    List<TaskScheduler> all() {
        return List.of(firing, claims, sendTimer, fence, results, housekeeping);
    }

    /** Starts the threaded ones; a manual scheduler needs no start. */
    void start() {
        for (TaskScheduler s : all()) {
            if (s instanceof ThreadedScheduler threaded) {
                threaded.start();
            }
        }
    }
}
