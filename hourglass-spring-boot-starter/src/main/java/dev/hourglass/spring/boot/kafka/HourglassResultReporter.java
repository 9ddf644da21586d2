package dev.hourglass.spring.boot.kafka;

import dev.hourglass.api.CallbackStatus;
import dev.hourglass.api.HourglassException;
import dev.hourglass.api.ResultReport;
import dev.hourglass.sdk.HourglassClient;
import java.nio.charset.StandardCharsets;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.springframework.kafka.listener.RecordInterceptor;

/**
 * Reports the result of each Hourglass record a listener handled, for KAFKA services with {@code
 * ackMode: CONSUMER}: SUCCESS when the listener returned, RETRY (with the exception's message)
 * when it threw. Records without Hourglass's headers are left alone.
 *
 * <p>The report is sent on the listener's thread. With the container's default ack mode (BATCH)
 * that is before the record's offset is committed; with RECORD, COUNT, TIME or MANUAL_IMMEDIATE
 * the offset may be committed first. Either way a crash before the report leaves the job RUNNING
 * and Hourglass delivers it again after the service's {@code timeoutMs}: at least once, never
 * lost. Only the job id and attempt headers are read, so the value may be of any type. A report refused with {@code CONFLICT} (the attempt
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
        // only the two headers a result needs: the value may be anything the deserializer made
        String jobId = header(record, "hourglass-job-id");
        String attempt = header(record, "hourglass-attempt");
        if (jobId == null || attempt == null) {
            return;
        }
        try {
            client.reportResult(
                    jobId,
                    new ResultReport()
                            .setAttempt(Integer.parseInt(attempt))
                            .setStatus(status)
                            .setMessage(message));
        } catch (RuntimeException e) { // thrown here it would only be logged by the container
            String why = e instanceof HourglassException h ? h.code() + ": " + h.getMessage() : e.toString();
            log.warn("result " + status + " of job " + jobId + " attempt " + attempt + " not recorded (" + why
                    + "); Hourglass sends the job again after its timeout unless the attempt already ended");
        }
    }

    private static String header(ConsumerRecord<Object, Object> record, String name) {
        Header h = record.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
