package dev.hourglass.node.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * An integration-test class that may run while one other such class runs, in a second test JVM:
 * failsafe runs the classes tagged {@value #TAG} two JVMs at a time, in the module
 * scheduler-node-it-alongside, beside scheduler-node-it's {@link RunsPaired} classes and those that
 * run alone, at a low CPU priority (nice 10: its POM and the parent's failsafe executions): they take
 * the CPU those leave, and all of it once they are done. The suite spends most of its time waiting
 * for sessions, timeouts and fire times, so a second JVM takes minutes off it on two cores.
 *
 * <p>Only for a class none of whose checks a JVM short of CPU can break: it asserts what happened
 * ("each once", "never early", "nothing lost"), not how soon; it waits generously (seconds for what
 * takes milliseconds); it binds no fixed port and writes no shared file. Beside a CPU-bound timed
 * class its JVM (and the nodes and servers it starts) may get a tenth of a core for seconds, so
 * every wall-clock bound the test's own steps must fit in gets room: a job timeout, a ZooKeeper
 * session, an attempt budget, a fire time relative to each submit. A class with a lateness, rate
 * or duration bound stays without it.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag(RunsAlongside.TAG)
public @interface RunsAlongside {
    String TAG = "alongside";
}
