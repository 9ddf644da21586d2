package dev.hourglass.node.dispatch.kafka;

import dev.hourglass.node.core.port.DeliveryResult;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.producer.BufferExhaustedException;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * One attempt on its way to the producer: WAITING (in the send queue, or for its topic's metadata),
 * then either HANDED_OVER (appended to the producer's buffer: only the producer's answer or the
 * attempt's TIMEOUT can end it now) or ENDED unsent (its timeout fired, the queue gave up on it, the
 * node stopped). The two ways out of WAITING run under this object's monitor, so the hand-over and
 * the end of the attempt are ordered: a record is never handed over once its attempt has ended,
 * and an attempt whose record was handed over is never reported as unsent.
 *
 * <p>Leaving WAITING gives the attempt's room back to the {@link ProducerHandOff} (exactly once).
 */
final class PendingSend {
    enum HandOver {
        /** Appended to the producer's buffer. */
        SENT,
        /** The attempt had already ended: nothing sent. */
        DROPPED,
        /** Refused before the append (buffer full, record invalid): ended as not delivered. */
        REFUSED,
        /** The producer does not know the topic's partitions yet: still WAITING. */
        NO_METADATA
    }

    private enum State {
        WAITING,
        HANDED_OVER,
        ENDED
    }

    final String topic;
    final int bytes;
    final CompletableFuture<DeliveryResult> answer = new CompletableFuture<>();
    private final ProducerHandOff owner;
    private final BooleanSupplier mayStillLeave;
    private ProducerRecord<byte[], byte[]> record; // guarded by this; dropped when WAITING ends
    private volatile State state = State.WAITING; // written under this
    /** What the attempt waits for, for the message of an attempt that ends unsent. */
    volatile String waitingFor = "the sender";
    /** Sender thread only: when it started waiting for its topic's metadata (nanoTime), and why. */
    long awaitingMetadataSince;

    Exception lastRefusal;

    PendingSend(
            ProducerRecord<byte[], byte[]> record, int bytes, BooleanSupplier mayStillLeave, ProducerHandOff owner) {
        this.topic = record.topic();
        this.record = record;
        this.bytes = bytes;
        this.mayStillLeave = mayStillLeave;
        this.owner = owner;
    }

    boolean hasEnded() {
        return state == State.ENDED;
    }

    /**
     * Ends the attempt as not delivered if its record was not handed over. Returns false when it
     * was (or the attempt had already ended).
     */
    boolean endUnsent(String message) {
        synchronized (this) {
            if (state != State.WAITING) {
                return false;
            }
            leaveWaiting(State.ENDED);
        }
        answer.complete(DeliveryResult.notDelivered(message));
        return true;
    }

    /**
     * On the sender thread: hands the record to the producer unless the attempt ended. The producer
     * must not block ({@code max.block.ms} 0): the monitor is held during {@code send}.
     */
    HandOver handOver(Producer<byte[], byte[]> producer) {
        Exception refusal;
        synchronized (this) {
            if (state != State.WAITING) {
                return HandOver.DROPPED;
            }
            if (answer.isDone()) { // completed by someone else: no longer current either
                leaveWaiting(State.ENDED);
                return HandOver.DROPPED;
            }
            if (!mayStillLeave.getAsBoolean()) {
                leaveWaiting(State.ENDED);
                refusal = null;
            } else {
                SendCall call = new SendCall();
                try {
                    producer.send(record, call);
                } catch (RuntimeException e) { // producer closed, serialization: nothing appended
                    call.refusal = e;
                }
                call.returned = true;
                if (call.refusal == null) {
                    leaveWaiting(State.HANDED_OVER);
                    return HandOver.SENT;
                }
                if (isMissingMetadata(call.refusal)) {
                    lastRefusal = call.refusal;
                    return HandOver.NO_METADATA;
                }
                leaveWaiting(State.ENDED);
                refusal = call.refusal;
            }
        }
        if (refusal == null) { // another node may be sending a later attempt of the job by now
            answer.complete(DeliveryResult.notDelivered("Kafka: not sent: this node may no longer send it (its"
                    + " shard moved or its lease lapsed while it waited for " + waitingFor + ")"));
            return HandOver.DROPPED;
        }
        answer.complete(DeliveryResult.notDelivered("Kafka: not sent: " + refusal));
        return HandOver.REFUSED;
    }

    /**
     * KafkaProducer refuses a record before appending it by calling the callback on the caller's
     * thread, inside {@code send}, with a TimeoutException: with {@code max.block.ms} 0, either the
     * topic's partitions are not in its metadata yet, or (a BufferExhaustedException) its buffer is
     * full.
     */
    private static boolean isMissingMetadata(Exception e) {
        return e instanceof TimeoutException && !(e instanceof BufferExhaustedException);
    }

    private void leaveWaiting(State to) {
        state = to;
        record = null;
        owner.released(bytes);
    }

    /**
     * The producer's callback for one {@code send}. An error reported on the sending thread before
     * {@code send} returned is a refusal before the append (KafkaProducer reports those that way);
     * anything else is the producer's answer for an appended record, from its I/O thread: an error
     * then may come after the broker wrote the record, so it is a plain ERROR.
     */
    private final class SendCall implements Callback {
        private final Thread caller = Thread.currentThread();
        private boolean returned; // caller thread only
        private Exception refusal; // caller thread only

        @Override
        public void onCompletion(RecordMetadata metadata, Exception error) {
            if (error != null && Thread.currentThread() == caller && !returned) {
                refusal = error;
                return;
            }
            answer.complete(
                    error == null
                            ? DeliveryResult.success(
                                    metadata.topic() + "-" + metadata.partition() + "@" + metadata.offset())
                            : DeliveryResult.error("Kafka: " + error));
        }
    }
}
