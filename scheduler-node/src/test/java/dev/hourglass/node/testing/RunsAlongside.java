package dev.hourglass.node.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * An integration-test class that may run while one other such class runs, in a second test JVM:
 * failsafe runs the classes tagged {@value #TAG} two JVMs at a time; in scheduler-node-it last,
 * after the {@link RunsPaired} classes and those that run alone (its POM and the parent's failsafe
 * executions). The suite spends most of its time waiting for
 * sessions, timeouts and fire times, so a second JVM takes minutes off it on two cores.
 *
 * <p>Only for a class none of whose checks two test JVMs sharing the CPU can break: it asserts
 * what happened ("each once", "never early", "nothing lost"), not how soon; it waits generously
 * (seconds for what takes milliseconds); it binds no fixed port and writes no shared file. A class
 * with a lateness, rate or duration bound, a short ZooKeeper session or a short job timeout the
 * test must beat stays without it.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag(RunsAlongside.TAG)
public @interface RunsAlongside {
    String TAG = "alongside";
}
