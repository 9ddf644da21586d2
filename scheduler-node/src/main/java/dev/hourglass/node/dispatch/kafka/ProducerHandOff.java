package dev.hourglass.node.dispatch.kafka;

import dev.hourglass.node.background.DaemonThreads;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bounded way from the engine's threads to the producer, drained by one sender thread that
 * never blocks.
 *
 * <p>Why: {@code KafkaProducer.send} blocks its caller while the topic's partitions are not in its
 * metadata (a new topic, a topic idle for 5 minutes, a broker that is down) or its buffer is full,
 * up to {@code max.block.ms}. The engine's threads must never block, and one sender thread that
 * blocks 2 s per record (as before) lets a queue of superseded attempts grow without bound and
 * sends each of them long after its attempt ended. So the producer runs with {@code max.block.ms}
 * 0: such a send is refused at once, and this class decides what to do:
 *
 * <ul>
 *   <li>the queue admits at most {@code sendQueueRecords} attempts and {@code sendQueueBytes} bytes
 *       not yet handed over; one more ends at once as an ERROR that never reached the broker;
 *   <li>a record whose topic has no metadata yet waits beside the queue, per topic in arrival order,
 *       and the sender tries the oldest again every 10 ms (each try asks the producer for the
 *       metadata); records that waited {@value #METADATA_WAIT_MS} ms end as not delivered, like a
 *       {@code send} that waited {@code max.block.ms} for metadata;
 *   <li>a record refused because the producer's buffer ({@code buffer.memory}, 32 MiB) is full ends
 *       at once as not delivered;
 *   <li>an attempt that ended while waiting (its timeout fired) is never handed over, nor one that
 *       this node may no longer send (its shard moved or its lease lapsed while it waited: a node
 *       frozen past its session hands nothing over when it thaws): see {@link PendingSend}.
 * </ul>
 *
 * Example: the broker is down and the node never sent to topic {@code t}. Attempt 1 of job 7 is
 * refused (no metadata) and waits; its 1 s timeout ends it as not delivered; the engine retries
 * with attempt 2, which waits too. The broker comes back, the next try gets the metadata: attempt 2
 * is sent; attempt 1 is dropped, never sent.
 *
 * <p>Threads: {@link #offer} from any thread; the waiting-for-metadata lists belong to the sender
 * thread; the room counters are guarded by this object.
 */
final class ProducerHandOff implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ProducerHandOff.class);
    static final long METADATA_WAIT_MS = 2_000;
    private static final long METADATA_RETRY_MS = 10;
    private static final long IDLE_POLL_MS = 1_000;
    private static final int DRAIN_BATCH = 1_000;

    private final Producer<byte[], byte[]> producer;
    private final int maxRecords;
    private final long maxBytes;
    private int records; // guarded by this
    private long bytes; // guarded by this
    private boolean closed; // guarded by this
    private final LinkedBlockingQueue<PendingSend> queue = new LinkedBlockingQueue<>();
    private final Map<String, ArrayDeque<PendingSend>> awaitingMetadata = new LinkedHashMap<>();
    private final Thread sender;

    ProducerHandOff(Producer<byte[], byte[]> producer, int maxRecords, long maxBytes) {
        this.producer = producer;
        this.maxRecords = maxRecords;
        this.maxBytes = maxBytes;
        this.sender = DaemonThreads.thread("hourglass-kafka-send", this::sendUntilClosed);
        sender.start();
    }

    /** Queues a record for the producer; null when the queue is full (or closed): nothing queued. */
    PendingSend offer(ProducerRecord<byte[], byte[]> record, int size, BooleanSupplier mayStillLeave) {
        synchronized (this) {
            if (closed || records >= maxRecords || bytes + size > maxBytes) {
                return null;
            }
            records++;
            bytes += size;
        }
        PendingSend p = new PendingSend(record, size, mayStillLeave, this);
        queue.add(p);
        return p;
    }

    /** A record left the queue: handed over, or its attempt ended. */
    synchronized void released(int size) {
        records--;
        bytes -= size;
    }

    synchronized int waitingRecords() {
        return records;
    }

    synchronized long waitingBytes() {
        return bytes;
    }

    int maxRecords() {
        return maxRecords;
    }

    long maxBytes() {
        return maxBytes;
    }

    private void sendUntilClosed() {
        long nextMetadataTry = System.nanoTime();
        List<PendingSend> batch = new ArrayList<>(DRAIN_BATCH);
        while (!isClosed()) {
            try {
                PendingSend first = queue.poll(
                        awaitingMetadata.isEmpty() ? IDLE_POLL_MS : METADATA_RETRY_MS, TimeUnit.MILLISECONDS);
                if (first != null) {
                    batch.add(first);
                    queue.drainTo(batch, DRAIN_BATCH - 1);
                    for (PendingSend p : batch) {
                        route(p);
                    }
                    batch.clear();
                }
                long now = System.nanoTime();
                if (!awaitingMetadata.isEmpty() && now - nextMetadataTry >= 0) {
                    tryAwaitingMetadata(now);
                    nextMetadataTry = now + TimeUnit.MILLISECONDS.toNanos(METADATA_RETRY_MS);
                }
            } catch (InterruptedException e) {
                // close() wakes the thread up; the loop condition decides
            } catch (RuntimeException e) {
                LOG.error("Kafka sender error; continuing", e);
            }
        }
        awaitingMetadata.values().forEach(waiting -> waiting.forEach(ProducerHandOff::endAtStop));
        awaitingMetadata.clear();
    }

    /** Behind the records of its topic that wait for metadata, else straight to the producer. */
    private void route(PendingSend p) {
        ArrayDeque<PendingSend> waiting = awaitingMetadata.get(p.topic);
        if (waiting == null && p.handOver(producer) != PendingSend.HandOver.NO_METADATA) {
            return;
        }
        p.awaitingMetadataSince = System.nanoTime();
        p.waitingFor = "the metadata of topic " + p.topic;
        awaitingMetadata.computeIfAbsent(p.topic, t -> new ArrayDeque<>()).add(p);
    }

    /** Tries the oldest record of each waiting topic; all of them once the metadata is there. */
    private void tryAwaitingMetadata(long now) {
        long giveUpBefore = now - TimeUnit.MILLISECONDS.toNanos(METADATA_WAIT_MS);
        for (Iterator<ArrayDeque<PendingSend>> topics =
                        awaitingMetadata.values().iterator();
                topics.hasNext(); ) {
            ArrayDeque<PendingSend> waiting = topics.next();
            PendingSend head;
            while ((head = waiting.peek()) != null) {
                if (head.handOver(producer) != PendingSend.HandOver.NO_METADATA) {
                    waiting.poll();
                    continue;
                }
                // still no metadata: give up on what waited long enough (oldest first), drop what ended
                String giveUp = "Kafka: not sent: topic " + head.topic + " not present in metadata after "
                        + METADATA_WAIT_MS + " ms (" + head.lastRefusal + ")";
                while ((head = waiting.peek()) != null
                        && (head.hasEnded() || head.awaitingMetadataSince - giveUpBefore <= 0)) {
                    waiting.poll().endUnsent(giveUp);
                }
                break;
            }
            if (waiting.isEmpty()) {
                topics.remove();
            }
        }
    }

    private synchronized boolean isClosed() {
        return closed;
    }

    private static void endAtStop(PendingSend p) {
        p.endUnsent("Kafka: not sent: the node is stopping");
    }

    /**
     * Stops taking records and ends every attempt still waiting as not delivered. Records already
     * handed over are the producer's (its own close flushes them).
     */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        sender.interrupt();
        try {
            sender.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        PendingSend p;
        while ((p = queue.poll()) != null) { // offered before closed was set, not yet taken
            endAtStop(p);
        }
    }
}
