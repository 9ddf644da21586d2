package dev.hourglass.spring.boot.kafka;

import dev.hourglass.api.CallbackStatus;
import dev.hourglass.api.HourglassException;
import dev.hourglass.sdk.HourglassClient;
import dev.hourglass.sdk.kafka.HourglassRecord;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.kafka.listener.RecordInterceptor;

/**
 * Reports the result of each Hourglass record a listener handled, for KAFKA services with {@code
 * ackMode: CONSUMER}: SUCCESS when the listener returned, RETRY (with the exception's message)
 * when it threw. Records without Hourglass's headers are left alone.
 *
 * <p>The report is sent on the listener's thread before the record's offset is committed, so a
 * crash in between leaves the job RUNNING and Hourglass delivers it again after the service's
 * {@code timeoutMs}: at least once, never lost. A report refused with {@code CONFLICT} (the attempt
 * timed out and was sent again meanwhile) or one that cannot reach any node is logged, not thrown:
 * the container would only retry the listener, which Hourglass does with the service's backoff.
 */
public class HourglassResultReporter implements RecordInterceptor<Object, Object> {
    private static final Log log = LogFactory.getLog(HourglassResultReporter.class);
    private static final int MAX_MESSAGE = 1_000;

    private final HourglassClient client;

    public HourglassResultReporter(HourglassClient client) {
        this.client = client;
    }

    @Override
    public ConsumerRecord<Object, Object> intercept(ConsumerRecord<Object, Object> record, Consumer<Object, Object> c) {
        return record;
    }

    @Override
    public void success(ConsumerRecord<Object, Object> record, Consumer<Object, Object> consumer) {
        report(record, CallbackStatus.SUCCESS, null);
    }

    @Override
    public void failure(ConsumerRecord<Object, Object> record, Exception exception, Consumer<Object, Object> consumer) {
        Throwable cause = exception.getCause() != null ? exception.getCause() : exception;
        String message = String.valueOf(cause.getMessage());
        report(
                record,
                CallbackStatus.RETRY,
                message.length() > MAX_MESSAGE ? message.substring(0, MAX_MESSAGE) : message);
    }

    private void report(ConsumerRecord<Object, Object> record, CallbackStatus status, String message) {
        if (record.headers().lastHeader("hourglass-job-id") == null) {
            return;
        }
        HourglassRecord job = HourglassRecord.from(record);
        try {
            job.report(client, status, message);
        } catch (HourglassException e) {
            log.warn("result " + status + " of job " + job.jobId() + " attempt " + job.attempt() + " not recorded ("
                    + e.code() + ": " + e.getMessage() + "); Hourglass sends the job again after its timeout"
                    + " unless the attempt already ended");
        }
    }
}
