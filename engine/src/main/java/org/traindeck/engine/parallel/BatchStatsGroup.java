package org.traindeck.engine.parallel;

import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.traindeck.engine.model.kernels.conv.BatchStatsExchange;

/**
 * The meeting point of the replicas of a synchronous step for synchronized BatchNorm: a barrier with a combine, one
 * exchange at a time. Round j of a step (every replica's j-th micro-batch) is exchanged among the replicas that have
 * a j-th micro-batch (the first ones: shards are contiguous), so a short last step never waits for an empty replica.
 * Results are combined in replica order, in double precision, by the replica that arrives last, and handed to all:
 * every replica normalises with the same figures, whatever the threads' timing. A replica that fails aborts the group
 * ({@link #abort}), and one that waits longer than the timeout aborts it too: the others get an exception, never a hang.
 */
public final class BatchStatsGroup {

    private enum Phase {
        FORWARD,
        BACKWARD
    }

    private record Part(Phase phase, String layer, long count, double[] a, double[] b) {}

    private static final class Result {
        final double[] values;
        int readers;

        Result(double[] values, int readers) {
            this.values = values;
            this.readers = readers;
        }
    }

    private final int size;
    private final long timeoutNanos;
    private final Part[] parts;
    private final int[] round;
    private int[] parties;
    private int arrived;
    private long generation;
    // each exchange's result until all its waiters took it: one that has no part in the next rounds may wake late
    private final Map<Long, Result> results = new HashMap<>();
    private RuntimeException aborted;

    /** @param timeout how long a replica waits for the others at one exchange before the step fails */
    public BatchStatsGroup(int size, Duration timeout) {
        this.size = size;
        this.timeoutNanos = timeout.toNanos();
        this.parts = new Part[size];
        this.round = new int[size];
    }

    /** The exchange replica {@code rank} hands its layers. */
    public BatchStatsExchange member(int rank) {
        if (rank < 0 || rank >= size) {
            throw new IllegalArgumentException("replica " + rank + " of " + size);
        }
        return new BatchStatsExchange() {
            @Override
            public boolean active() {
                synchronized (BatchStatsGroup.this) {
                    return parties != null;
                }
            }

            @Override
            public double[] forward(String layer, long count, double[] mean, double[] variance) {
                return exchange(rank, new Part(Phase.FORWARD, layer, count, mean, variance));
            }

            @Override
            public double[] backward(String layer, double[] sums) {
                return exchange(rank, new Part(Phase.BACKWARD, layer, 0, sums, null));
            }
        };
    }

    /** A step begins: replica w computes {@code microBatches[w]} micro-batches (non-increasing in w). */
    public synchronized void beginStep(int[] microBatches) {
        if (microBatches.length != size) {
            throw new IllegalArgumentException(microBatches.length + " shards for " + size + " replicas");
        }
        int rounds = microBatches.length == 0 ? 0 : microBatches[0];
        int[] p = new int[rounds];
        for (int j = 0; j < rounds; j++) {
            for (int w = 0; w < size; w++) {
                if (microBatches[w] > j) {
                    if (w != p[j]) {
                        throw new IllegalArgumentException(
                                "shards must be contiguous: " + Arrays.toString(microBatches));
                    }
                    p[j]++;
                }
            }
        }
        parties = p;
        Arrays.fill(round, 0);
        Arrays.fill(parts, null);
        arrived = 0;
        aborted = null;
        results.clear();
    }

    /** Replica {@code rank} starts its micro-batch {@code j} of the step. */
    public synchronized void enterRound(int rank, int j) {
        round[rank] = j;
    }

    /** The step is over (done or failed): the layers are plain BatchNorm until the next one. */
    public synchronized void endStep() {
        parties = null;
    }

    /** A replica failed: every replica waiting, or coming, at an exchange of this step fails too. */
    public synchronized void abort(Throwable cause) {
        if (parties != null && aborted == null) {
            aborted = new IllegalStateException(
                    "synchronized BatchNorm: another replica of this step failed (" + cause + ")", cause);
            notifyAll();
        }
    }

    private synchronized double[] exchange(int rank, Part part) {
        if (parties == null) {
            throw new IllegalStateException(
                    "synchronized BatchNorm exchange outside a step (layer " + part.layer + ")");
        }
        if (aborted != null) {
            throw aborted;
        }
        int expected = parties[round[rank]];
        parts[rank] = part;
        arrived++;
        if (arrived == expected) {
            double[] combined = combine(expected);
            arrived = 0;
            Arrays.fill(parts, null);
            generation++;
            if (expected > 1) {
                results.put(generation, new Result(combined, expected - 1));
            }
            notifyAll();
            return combined;
        }
        long gen = generation;
        long deadline = System.nanoTime() + timeoutNanos;
        try {
            while (generation == gen && aborted == null) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    aborted = new IllegalStateException("synchronized BatchNorm: replica " + rank + " waited "
                            + TimeUnit.NANOSECONDS.toSeconds(timeoutNanos) + " s at the "
                            + part.phase.name().toLowerCase()
                            + " exchange of layer " + part.layer + " for " + missing(expected)
                            + "; the step is abandoned");
                    notifyAll();
                    break;
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            aborted = new IllegalStateException(
                    "synchronized BatchNorm: replica " + rank + " was interrupted at an exchange", e);
            notifyAll();
        }
        if (generation == gen) {
            throw aborted;
        }
        Result r = results.get(gen + 1);
        if (--r.readers == 0) {
            results.remove(gen + 1);
        }
        return r.values;
    }

    private String missing(int expected) {
        StringBuilder out = new StringBuilder("replica(s)");
        for (int w = 0; w < expected; w++) {
            if (parts[w] == null) {
                out.append(' ').append(w);
            }
        }
        return out.toString();
    }

    private double[] combine(int expected) {
        Part first = parts[0];
        for (int w = 1; w < expected; w++) {
            if (parts[w].phase != first.phase
                    || !parts[w].layer.equals(first.layer)
                    || parts[w].a.length != first.a.length) {
                aborted =
                        new IllegalStateException("synchronized BatchNorm: replicas are out of step (replica 0 at the "
                                + first.phase + " of " + first.layer + ", replica " + w + " at the " + parts[w].phase
                                + " of " + parts[w].layer + ")");
                notifyAll();
                throw aborted;
            }
        }
        return first.phase == Phase.FORWARD ? pooled(expected) : summed(expected);
    }

    /** Chan et al.'s pairwise update: counts, means and squared deviations pooled without cancellation. */
    private double[] pooled(int expected) {
        int c = parts[0].a.length;
        double n = parts[0].count;
        double[] mean = parts[0].a.clone();
        double[] m2 = new double[c];
        for (int i = 0; i < c; i++) {
            m2[i] = parts[0].b[i] * n;
        }
        for (int w = 1; w < expected; w++) {
            Part p = parts[w];
            double nb = p.count;
            double total = n + nb;
            for (int i = 0; i < c; i++) {
                double delta = p.a[i] - mean[i];
                mean[i] += delta * nb / total;
                m2[i] += p.b[i] * nb + delta * delta * n * nb / total;
            }
            n = total;
        }
        double[] out = new double[1 + 2 * c];
        out[0] = n;
        System.arraycopy(mean, 0, out, 1, c);
        for (int i = 0; i < c; i++) {
            out[1 + c + i] = m2[i] / n;
        }
        return out;
    }

    private double[] summed(int expected) {
        double[] out = parts[0].a.clone();
        for (int w = 1; w < expected; w++) {
            for (int i = 0; i < out.length; i++) {
                out[i] += parts[w].a[i];
            }
        }
        return out;
    }
}
