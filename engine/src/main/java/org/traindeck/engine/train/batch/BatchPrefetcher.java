package org.traindeck.engine.train.batch;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Prepares the epoch's next batches on a background thread, at most {@code capacity} ahead, while the training
 * thread trains on the previous ones. A batch is a function of (order, epoch, index) alone ({@link BatchMaker}), so
 * the batches and their augmentation are the same whether they were prepared ahead or not, and a resume replays them
 * exactly. A failure while preparing a batch is rethrown on the training thread when it asks for that batch.
 * With a capacity of 0 the batches are made on the caller's thread.
 */
public final class BatchPrefetcher implements AutoCloseable {

    /** The name of the loader threads, so that their end can be checked. */
    public static final String THREAD_NAME = "traindeck-batches";

    /** Makes batch {@code index} of an epoch. */
    public interface Source {
        BatchMaker.Batch make(int[] order, int epoch, int index);
    }

    private record Failure(Throwable error) {}

    private final Source source;
    private final int capacity;
    private final int batchesPerEpoch;
    private final Runnable onLoaderThread;
    private Thread producer;
    private BlockingQueue<Object> ready;
    private int[] order;
    private int epoch;
    private int next;

    /**
     * @param capacity       batches prepared ahead (a bound on the memory they take); 0 prepares none ahead
     * @param onLoaderThread run first on each loader thread (places it on the training device)
     */
    public BatchPrefetcher(Source source, int capacity, int batchesPerEpoch, Runnable onLoaderThread) {
        this.source = source;
        this.capacity = capacity;
        this.batchesPerEpoch = batchesPerEpoch;
        this.onLoaderThread = onLoaderThread;
    }

    /** The plan's training batches, {@code stepsAhead} steps' worth prepared ahead. */
    public static BatchPrefetcher of(StagePlan plan, long seed, int stepsAhead, Runnable onLoaderThread) {
        int batchSize = plan.stage.batchSize();
        return new BatchPrefetcher(
                (order, epoch, index) -> plan.batches.batch(order, index, batchSize, seed, plan.index, epoch, true),
                stepsAhead * plan.batchesPerStep,
                plan.batchesPerEpoch,
                onLoaderThread);
    }

    /** Batches {@code from} (inclusive) to {@code to} (exclusive) of the epoch that {@code order} and {@code epoch} name. */
    public List<BatchMaker.Batch> take(int[] order, int epoch, int from, int to) {
        if (to > batchesPerEpoch) {
            throw new IllegalArgumentException("batch " + (to - 1) + " asked of an epoch of " + batchesPerEpoch);
        }
        List<BatchMaker.Batch> out = new ArrayList<>(Math.max(0, to - from));
        if (capacity <= 0) {
            for (int b = from; b < to; b++) {
                out.add(source.make(order, epoch, b));
            }
            return out;
        }
        if (producer == null || order != this.order || epoch != this.epoch || from != next) {
            start(order, epoch, from);
        }
        for (int b = from; b < to; b++) {
            Object item;
            try {
                item = ready.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for batch " + b + " of the epoch", e);
            }
            if (item instanceof Failure f) {
                // the producer has ended; the next take starts a new one
                stop();
                if (f.error() instanceof Error e) {
                    throw e;
                }
                throw (RuntimeException) f.error();
            }
            out.add((BatchMaker.Batch) item);
            next = b + 1;
        }
        return out;
    }

    private void start(int[] order, int epoch, int from) {
        stop();
        this.order = order;
        this.epoch = epoch;
        this.next = from;
        BlockingQueue<Object> queue = new ArrayBlockingQueue<>(capacity);
        ready = queue;
        producer = new Thread(() -> produce(queue, order, epoch, from), THREAD_NAME);
        producer.setDaemon(true);
        producer.start();
    }

    private void produce(BlockingQueue<Object> queue, int[] order, int epoch, int from) {
        try {
            try {
                onLoaderThread.run();
            } catch (RuntimeException | Error e) {
                queue.put(new Failure(e));
                return;
            }
            for (int b = from; b < batchesPerEpoch && !Thread.currentThread().isInterrupted(); b++) {
                BatchMaker.Batch batch;
                try {
                    batch = source.make(order, epoch, b);
                } catch (RuntimeException | Error e) {
                    // an Error too (a truncated memory-mapped file reads as InternalError): the trainer must hear of it
                    queue.put(new Failure(e));
                    return;
                }
                queue.put(batch);
            }
        } catch (InterruptedException e) {
            // closed: the batches prepared ahead are dropped
        }
    }

    private void stop() {
        Thread t = producer;
        producer = null;
        ready = null;
        if (t == null) {
            return;
        }
        t.interrupt();
        boolean interrupted = false;
        while (true) {
            try {
                // the batch being made finishes first: it may read a memory-mapped file that is closed after this
                t.join(TimeUnit.SECONDS.toMillis(1));
            } catch (InterruptedException e) {
                interrupted = true;
                continue;
            }
            if (!t.isAlive()) {
                break;
            }
            t.interrupt();
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Ends the loader thread, waiting for the batch it is making. */
    @Override
    public void close() {
        stop();
    }
}
