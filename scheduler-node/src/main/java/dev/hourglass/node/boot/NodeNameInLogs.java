package dev.hourglass.node.boot;

import ch.qos.logback.classic.LoggerContext;
import org.slf4j.LoggerFactory;

/**
 * Puts the node's id on every log line (docs/operations.md, "Logs"), the libraries' threads
 * included: a property of Logback's context, which the TEXT pattern prints after the level and the
 * JSON encoder under {@code context.properties.node}. A JVM runs one node; where one runs several
 * (the tests' in-process clusters) the lines could be any node's, so they carry none.
 */
final class NodeNameInLogs {
    static final String PROPERTY = "node";

    private NodeNameInLogs() {}

    static synchronized void name(String nodeId) {
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            return; // another SLF4J binding (an embedding application's): its own business
        }
        String named = context.getProperty(PROPERTY);
        if (named == null) {
            context.putProperty(PROPERTY, nodeId);
        } else if (!named.equals(nodeId)) {
            context.putProperty(PROPERTY, ""); // a second node in this JVM: none named from now on
        }
    }
}
