package dev.hourglass.node.testing;

import java.util.Map;
import java.util.function.Predicate;

/** Stacks of this JVM's threads, for the message of a test that timed out waiting on them. */
public final class ThreadDump {
    private ThreadDump() {}

    /** The stack of every live thread whose name matches, in the format of a jstack excerpt. */
    public static String of(Predicate<String> name) {
        StringBuilder out = new StringBuilder();
        for (Map.Entry<Thread, StackTraceElement[]> e :
                Thread.getAllStackTraces().entrySet()) {
            Thread t = e.getKey();
            if (!name.test(t.getName())) {
                continue;
            }
            out.append('"')
                    .append(t.getName())
                    .append("\" ")
                    .append(t.getState())
                    .append('\n');
            for (StackTraceElement frame : e.getValue()) {
                out.append("    at ").append(frame).append('\n');
            }
        }
        return out.toString();
    }
}
