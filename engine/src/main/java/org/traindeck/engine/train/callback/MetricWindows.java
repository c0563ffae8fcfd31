package org.traindeck.engine.train.callback;

import java.util.Arrays;
import java.util.List;
import org.traindeck.engine.events.MetricNames;
import org.traindeck.engine.train.batch.StagePlan;
import org.traindeck.engine.train.state.RunEvents;
import org.traindeck.engine.train.state.StepReport;
import org.traindeck.engine.train.state.TrainingState;

/**
 * Averages the step metrics over a window of {@code logging.everySteps} steps (and the epoch's last) and publishes
 * them: the loss, learning rate, gradient norm, throughput in total and per device, the scaling efficiency against
 * one device, and the time spent exchanging gradients between devices. Also the epoch-level loss and duration.
 */
public final class MetricWindows implements TrainingCallback {

    private final RunEvents events;
    private final List<String> deviceIds;
    private final int everySteps;
    private final double configuredBaseline;
    private double loss;
    private long examples;
    private int steps;
    private double norm = Double.NaN;
    private long exchangeNanos;
    private double baseline = Double.NaN;
    private long start = System.nanoTime();
    private long epochExamples;
    private final long[] perDevice;

    public MetricWindows(RunEvents events, List<String> deviceIds, int everySteps, double configuredBaseline) {
        this.events = events;
        this.deviceIds = deviceIds;
        this.everySteps = everySteps;
        this.configuredBaseline = configuredBaseline;
        this.perDevice = new long[deviceIds.size()];
    }

    @Override
    public void onTierStart(TrainingState state, StagePlan plan) {
        reset();
        events.metric(MetricNames.STEPS_PER_EPOCH, plan.stepsPerEpoch, null);
        events.metric(MetricNames.WORKERS, plan.workers, null);
        events.metric(MetricNames.GLOBAL_BATCH, plan.globalBatch(), null);
    }

    @Override
    public void onTierFailure(TrainingState state, StagePlan plan) {
        reset();
    }

    @Override
    public void onEpochStart(TrainingState state, StagePlan plan) {
        start = System.nanoTime();
        epochExamples = 0;
    }

    @Override
    public void onStep(TrainingState state, StagePlan plan, StepReport r) {
        if (!r.applied()) {
            return;
        }
        loss += r.loss() * r.examples();
        examples += r.examples();
        epochExamples += r.examples();
        steps++;
        norm = r.gradNorm();
        exchangeNanos += r.exchangeNanos();
        for (int d = 0; d < r.examplesPerDevice().length && d < perDevice.length; d++) {
            perDevice[d] += r.examplesPerDevice()[d];
        }
        if (!Double.isNaN(r.baselinePerDevice())) {
            baseline = r.baselinePerDevice();
        }
        if (r.step() % everySteps == 0 || state.cursor >= plan.batchesPerEpoch) {
            publish(r.lr(), plan);
        }
    }

    private void publish(double lr, StagePlan plan) {
        long now = System.nanoTime();
        double seconds = Math.max(1e-9, (now - start) / 1e9);
        if (examples > 0) {
            double total = examples / seconds;
            RunEvents.Together step = events.together();
            step.metric(MetricNames.TRAIN_LOSS, loss / examples, null);
            step.metric(MetricNames.LR, lr, null);
            if (Double.isFinite(norm)) {
                step.metric(MetricNames.GRAD_NORM, norm, null);
            }
            step.metric(MetricNames.THROUGHPUT, total, null);
            int n = plan.workers;
            if (n > 1) {
                for (int d = 0; d < n && d < perDevice.length; d++) {
                    step.metric(MetricNames.THROUGHPUT, perDevice[d] / seconds, deviceIds.get(d));
                }
                double one = configuredBaseline > 0 ? configuredBaseline : baseline;
                if (one > 0) {
                    step.metric(MetricNames.SCALING_EFFICIENCY, total / (n * one), null);
                }
                if (plan.tier.synchronous()) {
                    step.metric(MetricNames.ALLREDUCE_MS, exchangeNanos / 1e6 / Math.max(1, steps), null);
                }
            }
            step.publish();
        }
        reset();
        start = now;
    }

    private void reset() {
        loss = 0;
        examples = 0;
        steps = 0;
        norm = Double.NaN;
        exchangeNanos = 0;
        Arrays.fill(perDevice, 0);
        start = System.nanoTime();
    }

    @Override
    public void onEpochEnd(TrainingState state, StagePlan plan, EpochSummary summary) {
        events.metric(MetricNames.TRAIN_EPOCH_LOSS, state.epochMeanLoss(), null);
        events.metric(MetricNames.EPOCH_TIME, summary.seconds(), null);
        if (epochExamples > 0 && summary.seconds() > 0) {
            events.metric(MetricNames.EPOCH_THROUGHPUT, epochExamples / summary.seconds(), null);
        }
        summary.metrics().put(MetricNames.TRAIN_EPOCH_LOSS, state.epochMeanLoss());
    }
}
