package dev.hourglass.node.dispatch.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.hourglass.api.JobState;
import dev.hourglass.node.core.job.AttemptOutcome;
import dev.hourglass.node.core.job.Backoff;
import dev.hourglass.node.core.job.Job;
import dev.hourglass.node.core.port.Delivery;
import dev.hourglass.node.core.port.DeliveryResult;
import dev.hourglass.node.core.service.AckMode;
import dev.hourglass.node.core.service.Protocol;
import dev.hourglass.node.core.service.ServiceDefinition;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.apache.kafka.clients.producer.BufferExhaustedException;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The dispatcher's hand-off to the producer, with a producer that refuses the way KafkaProducer
 * does (metadata not known within {@code max.block.ms}, buffer full) under the dispatcher's own
 * producer settings.
 */
class KafkaDispatcherTest {
    private static final KafkaSettings DEFAULTS = new KafkaSettings(10_000, 32L << 20, 10_000);
    private StubProducer producer;
    private KafkaDispatcher dispatcher;

    private KafkaDispatcher start(KafkaSettings settings) {
        producer = new StubProducer(KafkaDispatcher.producerProperties("127.0.0.1:1", "test", settings));
        dispatcher = new KafkaDispatcher(producer, settings);
        return dispatcher;
    }

    @AfterEach
    void close() {
        if (dispatcher != null) {
            dispatcher.close();
        }
    }

    @Test
    void anAttemptThatEndedBeforeItsRecordWasHandedOverIsNeverSentLater() {
        start(DEFAULTS);
        producer.topicMissing("orders");
        CompletableFuture<DeliveryResult> first = deliver(7, 1, 200, "orders", "{}");
        producer.attemptEnded = r -> attempt(r) == 1 && first.isDone();
        await().atMost(Duration.ofSeconds(10)).until(first::isDone);

        producer.topicCreated("orders"); // the broker is back: the retry goes out
        CompletableFuture<DeliveryResult> second = deliver(7, 2, 10_000, "orders", "{}");
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            producer.completeNext();
            return second.isDone();
        });

        assertThat(producer.handedOverAfterTheirAttemptEnded)
                .as("records handed to the producer after their attempt had ended")
                .isEmpty();
        assertThat(producer.history()).extracting(KafkaDispatcherTest::attempt).containsExactly(2);
        assertThat(first.join().outcome()).isEqualTo(AttemptOutcome.ERROR);
        assertThat(first.join().reachedReceiver())
                .as("attempt 1 never left the node")
                .isFalse();
        assertThat(second.join().outcome()).isEqualTo(AttemptOutcome.SUCCESS);
    }

    @Test
    void aRecordWaitingForTheProducerIsNotHandedOverOnceThisNodeMayNoLongerSendIt() {
        // a node frozen past its session (SIGSTOP) while the record waited for its topic's metadata:
        // on thawing its shard lease has lapsed, and another node may be sending attempt 2 already
        start(DEFAULTS);
        producer.topicMissing("orders");
        // current when first tried (refused: no metadata), no longer current at every later try. The
        // lease is checked just before the append, so the topic appears only once that first try is
        // over: a lease that lapses during an append is the lease margin's business, not this test's
        AtomicInteger consulted = new AtomicInteger();
        CompletableFuture<DeliveryResult> first =
                deliver(7, 1, 30_000, "orders", "{}", () -> consulted.incrementAndGet() == 1);
        await().atMost(Duration.ofSeconds(5)).until(() -> producer.refusals.get() >= 1);
        producer.topicCreated("orders");

        DeliveryResult r = await().atMost(Duration.ofSeconds(5)).until(() -> first.getNow(null), x -> x != null);
        assertThat(producer.history()).as("nothing handed to the producer").isEmpty();
        assertThat(r.outcome()).isEqualTo(AttemptOutcome.ERROR);
        assertThat(r.reachedReceiver()).isFalse();
        assertThat(r.message()).contains("may no longer send it");
        assertThat(dispatcher.waitingRecords()).isZero();
    }

    @Test
    void aTopicWithoutMetadataHoldsNoOtherTopicBack() {
        start(DEFAULTS);
        producer.topicMissing("missing");
        CompletableFuture<DeliveryResult> stuck = deliver(1, 1, 30_000, "missing", "{}");
        CompletableFuture<DeliveryResult> other = deliver(2, 1, 30_000, "present", "{}");

        await("the other topic's record handed over while the first waits for metadata")
                .atMost(Duration.ofSeconds(1))
                .until(() -> producer.history().stream().anyMatch(r -> r.topic().equals("present")));
        producer.completeNext();
        assertThat(other.join().outcome()).isEqualTo(AttemptOutcome.SUCCESS);

        DeliveryResult r = await().atMost(Duration.ofSeconds(10)).until(() -> stuck.getNow(null), x -> x != null);
        assertThat(r.outcome()).isEqualTo(AttemptOutcome.ERROR);
        assertThat(r.reachedReceiver()).isFalse();
        assertThat(r.message()).contains("missing").contains("metadata");
    }

    @Test
    void aFullSendQueueEndsTheAttemptAtOnceWithoutReachingTheBroker() {
        start(new KafkaSettings(3, 1L << 20, 10_000));
        producer.topicMissing("slow");
        List<CompletableFuture<DeliveryResult>> waiting = List.of(
                deliver(1, 1, 30_000, "slow", "{}"),
                deliver(2, 1, 30_000, "slow", "{}"),
                deliver(3, 1, 30_000, "slow", "{}"));
        CompletableFuture<DeliveryResult> refused = deliver(4, 1, 30_000, "slow", "{}");

        assertThat(refused).as("refused when the queue is full, at once").isDone();
        assertThat(refused.join().outcome()).isEqualTo(AttemptOutcome.ERROR);
        assertThat(refused.join().reachedReceiver()).isFalse();
        assertThat(refused.join().message()).contains("queue");
        assertThat(waiting).noneMatch(CompletableFuture::isDone);

        producer.topicCreated("slow");
        await().atMost(Duration.ofSeconds(5)).until(() -> producer.history().size() == 3);
        assertThat(deliver(5, 1, 30_000, "slow", "{}")).as("room again").isNotDone();
    }

    @Test
    void theSendQueueIsAlsoBoundedInBytes() {
        start(new KafkaSettings(100, 2_500, 10_000));
        producer.topicMissing("big");
        String payload = "{\"pad\":\"" + "x".repeat(1_000) + "\"}";
        CompletableFuture<DeliveryResult> one = deliver(1, 1, 30_000, "big", payload);
        CompletableFuture<DeliveryResult> two = deliver(2, 1, 30_000, "big", payload);
        CompletableFuture<DeliveryResult> three = deliver(3, 1, 30_000, "big", payload);

        assertThat(one).isNotDone();
        assertThat(two).isNotDone();
        assertThat(three).isDone();
        assertThat(three.join().reachedReceiver()).isFalse();
        assertThat(three.join().message()).contains("queue");
    }

    @Test
    void aRefusalBeforeTheAppendNeverReachedTheBrokerAndAnErrorAfterItMayHave() {
        start(DEFAULTS);
        producer.bufferFull = true;
        CompletableFuture<DeliveryResult> refused = deliver(1, 1, 30_000, "t", "{}");
        DeliveryResult r = await().atMost(Duration.ofSeconds(5)).until(() -> refused.getNow(null), x -> x != null);
        assertThat(r.outcome()).isEqualTo(AttemptOutcome.ERROR);
        assertThat(r.reachedReceiver()).as("refused by a full producer buffer").isFalse();

        producer.bufferFull = false;
        CompletableFuture<DeliveryResult> failed = deliver(2, 1, 30_000, "t", "{}");
        await().atMost(Duration.ofSeconds(5)).until(() -> producer.history().size() == 1);
        producer.errorNext(new NetworkException("connection lost"));
        assertThat(failed.join().outcome()).isEqualTo(AttemptOutcome.ERROR);
        assertThat(failed.join().reachedReceiver())
                .as("appended, then failed: may be written")
                .isTrue();
    }

    @Test
    void noAcknowledgementWithinTheTimeoutIsATimeout() {
        start(DEFAULTS);
        CompletableFuture<DeliveryResult> unanswered = deliver(1, 1, 100, "t", "{}");
        DeliveryResult r = await().atMost(Duration.ofSeconds(5)).until(() -> unanswered.getNow(null), x -> x != null);
        assertThat(r.outcome()).isEqualTo(AttemptOutcome.TIMEOUT);
        assertThat(r.reachedReceiver()).isTrue();
        assertThat(producer.history()).hasSize(1);
    }

    @Test
    void closingEndsTheAttemptsStillWaitingAsNotDelivered() {
        start(DEFAULTS);
        producer.topicMissing("t");
        CompletableFuture<DeliveryResult> waiting = deliver(1, 1, 60_000, "t", "{}");
        dispatcher.close();
        DeliveryResult r = await().atMost(Duration.ofSeconds(1)).until(() -> waiting.getNow(null), x -> x != null);
        assertThat(r.outcome()).isEqualTo(AttemptOutcome.ERROR);
        assertThat(r.reachedReceiver()).isFalse();
    }

    // ---- fixtures --------------------------------------------------------------------------------

    private CompletableFuture<DeliveryResult> deliver(
            long jobId, int attempt, long timeoutMs, String topic, String payload) {
        return deliver(jobId, attempt, timeoutMs, topic, payload, () -> true);
    }

    private CompletableFuture<DeliveryResult> deliver(
            long jobId,
            int attempt,
            long timeoutMs,
            String topic,
            String payload,
            java.util.function.BooleanSupplier mayStillLeave) {
        long now = System.currentTimeMillis();
        Job job = new Job(
                jobId,
                "shop",
                "svc",
                null,
                0,
                JobState.RUNNING,
                now,
                now + timeoutMs,
                null,
                attempt,
                0,
                100,
                timeoutMs,
                null,
                payload,
                Map.of(),
                null,
                "node",
                1,
                now,
                now);
        ServiceDefinition service = new ServiceDefinition(
                "shop",
                "svc",
                Protocol.KAFKA,
                topic,
                null,
                null,
                null,
                100,
                timeoutMs,
                Backoff.DEFAULT,
                AckMode.AUTO,
                1_000,
                null,
                null,
                now,
                now);
        return dispatcher
                .deliver(new Delivery(job, service, now, mayStillLeave))
                .toCompletableFuture();
    }

    private static int attempt(ProducerRecord<byte[], byte[]> r) {
        return Integer.parseInt(
                new String(r.headers().lastHeader("hourglass-attempt").value(), StandardCharsets.UTF_8));
    }

    private static String jobId(ProducerRecord<byte[], byte[]> r) {
        return new String(r.headers().lastHeader("hourglass-job-id").value(), StandardCharsets.UTF_8);
    }

    /**
     * Refuses like KafkaProducer under the given settings: a record for a topic whose metadata is
     * not known waits up to {@code max.block.ms} for it on the caller's thread, then is refused
     * through the callback, before append, on that thread; so is a record that finds the buffer
     * full. Acknowledgements come from {@link #completeNext()} / {@link #errorNext}.
     */
    static final class StubProducer extends MockProducer<byte[], byte[]> {
        private final long maxBlockMs;
        private final Set<String> missingTopics = ConcurrentHashMap.newKeySet();
        private final Object topicsChanged = new Object();
        final List<String> handedOverAfterTheirAttemptEnded = new CopyOnWriteArrayList<>();
        volatile Predicate<ProducerRecord<byte[], byte[]>> attemptEnded = r -> false;
        volatile boolean bufferFull;
        final AtomicInteger refusals = new AtomicInteger();

        StubProducer(Properties config) {
            super(false, null, new ByteArraySerializer(), new ByteArraySerializer());
            this.maxBlockMs = Long.parseLong(
                    config.get(ProducerConfig.MAX_BLOCK_MS_CONFIG).toString());
        }

        void topicMissing(String topic) {
            missingTopics.add(topic);
        }

        void topicCreated(String topic) {
            synchronized (topicsChanged) {
                missingTopics.remove(topic);
                topicsChanged.notifyAll();
            }
        }

        @Override
        public Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record, Callback callback) {
            if (!awaitMetadata(record.topic())) {
                return refuse(
                        callback,
                        new TimeoutException(
                                "Topic " + record.topic() + " not present in metadata after " + maxBlockMs + " ms."));
            }
            if (bufferFull) {
                return refuse(
                        callback,
                        new BufferExhaustedException(
                                "Failed to allocate memory within the configured max blocking time"));
            }
            if (attemptEnded.test(record)) {
                handedOverAfterTheirAttemptEnded.add("job " + jobId(record) + " attempt " + attempt(record));
            }
            return super.send(record, callback);
        }

        private boolean awaitMetadata(String topic) {
            long deadline = System.nanoTime() + maxBlockMs * 1_000_000;
            synchronized (topicsChanged) {
                while (missingTopics.contains(topic)) {
                    long left = (deadline - System.nanoTime()) / 1_000_000;
                    if (left <= 0) {
                        return false;
                    }
                    try {
                        topicsChanged.wait(left);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return false;
                    }
                }
                return true;
            }
        }

        private Future<RecordMetadata> refuse(Callback callback, RuntimeException e) {
            refusals.incrementAndGet();
            callback.onCompletion(null, e);
            return CompletableFuture.failedFuture(e);
        }
    }
}
