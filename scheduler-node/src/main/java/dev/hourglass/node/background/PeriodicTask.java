package dev.hourglass.node.background;

/**
 * A chore run again and again, named by what it does ({@code LoadWindowTask}, {@code
 * CatchUpTask}): {@link #every} plans it on a {@link TaskScheduler} with a fixed delay between the
 * end of one run and the start of the next, so a slow run never piles up behind itself.
 */
public interface PeriodicTask extends Runnable {

    /** For logs and thread dumps: what the task does, in a few words. */
    String name();

    /**
     * Runs {@code task} {@code firstAfterMs} from now, then {@code periodMs} after each run ends,
     * until the returned handle is canceled or the scheduler closes. A run that throws is logged and
     * the next one is planned as usual.
     */
    static TaskScheduler.Scheduled every(TaskScheduler scheduler, PeriodicTask task, long firstAfterMs, long periodMs) {
        return new Repeating(scheduler, task, periodMs).plan(firstAfterMs);
    }

    /** The plan of one periodic task: re-planned at the end of each run. */
    final class Repeating implements TaskScheduler.Scheduled {
        private final TaskScheduler scheduler;
        private final PeriodicTask task;
        private final long periodMs;
        private volatile boolean canceled;
        private volatile TaskScheduler.Scheduled next;

        private Repeating(TaskScheduler scheduler, PeriodicTask task, long periodMs) {
            this.scheduler = scheduler;
            this.task = task;
            this.periodMs = periodMs;
        }

        private Repeating plan(long afterMs) {
            next = scheduler.after(afterMs, this::runOnce);
            return this;
        }

        private void runOnce() {
            if (canceled) {
                return;
            }
            try {
                Guarded.of(task.name(), task).run();
            } finally {
                if (!canceled) {
                    plan(periodMs);
                }
            }
        }

        @Override
        public void cancel() {
            canceled = true;
            TaskScheduler.Scheduled n = next;
            if (n != null) {
                n.cancel();
            }
        }
    }
}
