package org.traindeck.engine.train.step;

import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.DataSetPreProcessor;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.traindeck.engine.train.batch.BatchMaker;

/**
 * The epoch's remaining batches, in TrainDeck's order, with its augmentation, in rounds of W. A producer thread
 * prepares up to {@code prefetch} batches ahead; a failure there is rethrown to the consumer (ParallelWrapper's
 * own async prefetcher can lose it and hang).
 */
final class EpochIterator implements DataSetIterator, AutoCloseable {
    private static final Object END = new Object();

    private final int end;
    private final int batchSize;
    private final int workers;
    private final BooleanSupplier stop;
    private final int start;
    private final BlockingQueue<Object> ready;
    private final Thread producer;
    private final BatchSource source;
    private final long failRoundAtBatch;
    private int next;
    private boolean stopped;
    final List<Integer> roundSizes = new CopyOnWriteArrayList<>();

    /** Makes batch {@code index} of the epoch. */
    interface BatchSource {
        DataSet make(int index);
    }

    EpochIterator(
            BatchMaker maker,
            int[] order,
            int start,
            int end,
            int batchSize,
            long seed,
            int stageIndex,
            int epoch,
            int workers,
            BooleanSupplier stop,
            int prefetch,
            long failRoundAtBatch) {
        this.start = start;
        this.failRoundAtBatch = failRoundAtBatch;
        this.next = start;
        this.end = end;
        this.batchSize = batchSize;
        this.workers = workers;
        this.stop = stop;
        this.source = i -> {
            BatchMaker.Batch b = maker.batch(order, i, batchSize, seed, stageIndex, epoch, true);
            // one input only: the config checks refuse named inputs with ParallelWrapper's rounds
            return new DataSet(b.features(), b.labels());
        };
        for (int b = start; b < end; b += workers) {
            roundSizes.add(Math.min(workers, end - b));
        }
        if (prefetch > 0) {
            ready = new ArrayBlockingQueue<>(prefetch);
            producer = new Thread(this::produce, "traindeck-prefetch");
            producer.setDaemon(true);
            producer.start();
        } else {
            ready = null;
            producer = null;
        }
    }

    private void produce() {
        try {
            for (int i = start; i < end; i++) {
                ready.put(source.make(i));
            }
            ready.put(END);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            try {
                ready.put(e);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public synchronized boolean hasNext() {
        if (!stopped && (next - start) % workers == 0 && stop.getAsBoolean()) {
            stopped = true;
        }
        return !stopped && next < end;
    }

    @Override
    public synchronized DataSet next() {
        if ((next - start) % workers == 0) {
            long failAt = failRoundAtBatch;
            if (failAt >= 0 && next >= failAt && next - workers < failAt) {
                throw new ParallelEpoch.InjectedFailure("injected failure between two rounds at batch " + next);
            }
        }
        if (ready == null) {
            return source.make(next++);
        }
        Object item;
        try {
            item = ready.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the next batch", e);
        }
        if (item instanceof RuntimeException e) {
            throw e;
        }
        if (item instanceof Error e) {
            throw e;
        }
        if (item == END) {
            throw new NoSuchElementException("the epoch has no more batches");
        }
        next++;
        return (DataSet) item;
    }

    @Override
    public void close() {
        if (producer != null) {
            producer.interrupt();
        }
    }

    @Override
    public DataSet next(int num) {
        return next();
    }

    @Override
    public int inputColumns() {
        return -1;
    }

    @Override
    public int totalOutcomes() {
        return -1;
    }

    @Override
    public boolean resetSupported() {
        return false;
    }

    @Override
    public boolean asyncSupported() {
        return false;
    }

    @Override
    public void reset() {
        throw new UnsupportedOperationException("an epoch is iterated once");
    }

    @Override
    public int batch() {
        return batchSize;
    }

    @Override
    public void setPreProcessor(DataSetPreProcessor preProcessor) {
        throw new UnsupportedOperationException("TrainDeck prepares its batches itself");
    }

    @Override
    public DataSetPreProcessor getPreProcessor() {
        return null;
    }

    @Override
    public List<String> getLabels() {
        return null;
    }
}
