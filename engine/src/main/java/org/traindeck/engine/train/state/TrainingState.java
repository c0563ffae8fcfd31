package org.traindeck.engine.train.state;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Where a run is, shared by the trainer, its step strategies and its callbacks: the global step, the stage and
 * epoch, the cursor in the epoch (batches of the per-device batch size already trained on), the running epoch's
 * loss, the best monitored value per stage and the newest checkpoint. Written by the training thread only; the
 * global step and the stop flag are read from others.
 */
public final class TrainingState {

    public volatile long globalStep;
    public volatile boolean stopRequested;
    public volatile boolean abandoned;
    public int stageIndex;
    public String stageName = "";
    public int epoch;
    public int cursor;
    public int[] order;
    public double epochLossSum;
    public long epochExamples;
    public final Map<String, Double> best = new HashMap<>();
    public Path lastCheckpoint;
    public long lastCheckpointNanos;
    /** A test's faults, for the tier chain and the step strategies; none in production. */
    public TrainingFaults faults = TrainingFaults.NONE;

    private final double elapsedBefore;
    private long startNanos;

    public TrainingState(long globalStep, double elapsedBefore, Map<String, Double> best) {
        this.globalStep = globalStep;
        this.elapsedBefore = elapsedBefore;
        this.best.putAll(best);
    }

    public void startClock() {
        startNanos = System.nanoTime();
        lastCheckpointNanos = startNanos;
    }

    /** Training time of the whole run, the time before a resume included. */
    public double elapsed() {
        return elapsedBefore + (startNanos == 0 ? 0 : (System.nanoTime() - startNanos) / 1e9);
    }

    /** A new epoch, at its start or (resuming) at a batch of it with the loss so far. */
    public void startEpoch(int epoch, int[] order, int cursor, double lossSum, long examples) {
        this.epoch = epoch;
        this.order = order;
        this.cursor = cursor;
        this.epochLossSum = lossSum;
        this.epochExamples = examples;
    }

    /** Records a finished step (applied or skipped). */
    public void stepDone(StepReport r) {
        globalStep = r.step();
        cursor += r.batches();
        if (r.applied()) {
            epochLossSum += r.loss() * r.examples();
            epochExamples += r.examples();
        }
    }

    public double epochMeanLoss() {
        return epochLossSum / Math.max(1, epochExamples);
    }
}
