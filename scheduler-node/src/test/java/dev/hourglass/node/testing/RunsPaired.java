package dev.hourglass.node.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * An integration-test class that may share the machine with one other class of this tag, but not
 * with the busy classes of {@link RunsAlongside}: failsafe runs the classes tagged {@value #TAG}
 * two test JVMs at a time; in scheduler-node-it first, before the classes that run alone and the
 * {@link RunsAlongside} ones (its POM and the parent's failsafe executions). The tests of the
 * modules after the node run beside this phase at the lowest CPU priority.
 *
 * <p>For a class that has a timing bound the CPU could break, but a loose one (a second and more
 * of slack over what it measures, or a wait of seconds for what takes milliseconds), and that
 * spends its time waiting (on receivers, timeouts, sessions, a browser) rather than computing; its
 * peers in this phase are the same kind, so the second JVM takes little of the CPU it needs. A class
 * with a bound under a second, a rate to keep, a large load or several node JVMs starting at once
 * runs alone.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag(RunsPaired.TAG)
public @interface RunsPaired {
    String TAG = "paired";
}
