package dev.hourglass.node.firing;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.AppenderBase;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.LoggerFactory;

/**
 * The exceptions the engine caught, logged and went on from, on the test's thread: a task that
 * threw inside the engine's own guards ({@code Guarded}, the batch loop, the sender's timer task,
 * the claim round) never reaches {@code ManualScheduler.failures()}, so an engine test looks here
 * too. Only events that carry a throwable count: the engine logs the faults it expects (a refused
 * write, a service that cannot be read) by their message alone, and a defect with its stack.
 */
final class LoggedDefects extends AppenderBase<ILoggingEvent> implements AutoCloseable {
    private final Thread thread = Thread.currentThread();
    private final List<String> logged = new CopyOnWriteArrayList<>();
    private final Logger logger;

    private LoggedDefects(Logger logger) {
        this.logger = logger;
    }

    /** Watches the node's loggers on the calling thread (the test's, which runs every engine task). */
    static LoggedDefects capture() {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        LoggedDefects appender = new LoggedDefects(context.getLogger("dev.hourglass.node"));
        appender.setContext(context);
        appender.setName("logged-defects");
        appender.start();
        appender.logger.addAppender(appender);
        return appender;
    }

    @Override
    protected void append(ILoggingEvent event) {
        IThrowableProxy thrown = event.getThrowableProxy();
        if (Thread.currentThread() == thread
                && thrown != null
                && event.getLevel().isGreaterOrEqual(Level.WARN)) {
            logged.add(event.getLoggerName() + ": " + event.getFormattedMessage() + ": " + thrown.getClassName() + ": "
                    + thrown.getMessage());
        }
    }

    List<String> logged() {
        return logged;
    }

    @Override
    public void close() {
        logger.detachAppender(this);
        stop();
    }
}
