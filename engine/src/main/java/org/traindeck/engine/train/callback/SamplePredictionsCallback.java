package org.traindeck.engine.train.callback;

import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.config.SamplesConfig;
import org.traindeck.engine.events.SamplesEvent;
import org.traindeck.engine.train.batch.StagePlan;
import org.traindeck.engine.train.samples.SamplePredictor;
import org.traindeck.engine.train.samples.SampleSet;
import org.traindeck.engine.train.state.RunEvents;
import org.traindeck.engine.train.state.TrainingState;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Sample predictions ({@code logging.samples}): at each interval the training thread copies the weights into a replica
 * of the model (a copy of the parameters, no forward pass), and a worker thread predicts the stage's fixed examples
 * with it in inference mode and publishes them ({@link SamplesEvent}) while training goes on. An interval whose
 * predecessor is still being predicted is skipped, so a slow prediction never holds the training back nor piles up.
 */
public final class SamplePredictionsCallback implements TrainingCallback, AutoCloseable {

    private final SamplesConfig config;
    private final long seed;
    private final RunEvents events;
    private final Supplier<ComputationGraph> net;
    private final SamplePredictor predictor;
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "traindeck-samples");
        t.setDaemon(true);
        return t;
    });
    private SampleSet set;
    private ComputationGraph replica;
    private ComputationGraph replicaOf;
    private Future<?> running;
    private int interval;
    private boolean toldSkipped;

    public SamplePredictionsCallback(SamplesConfig config, long seed, RunEvents events, Supplier<ComputationGraph> net,
                                     SamplePredictor predictor) {
        this.config = config;
        this.seed = seed;
        this.events = events;
        this.net = net;
        this.predictor = predictor;
    }

    @Override
    public void onStageStart(TrainingState state, StagePlan plan) {
        set = null;
        if (plan.data.validation() == null) {
            events.logLine("sample predictions: stage \"" + plan.stage.name() + "\" has no validation data to take examples from");
            return;
        }
        set = SampleSet.choose(plan.data.validation(), config.count(), seed, plan.images, plan.dataType);
        events.logLine("sample predictions: validation examples " + Arrays.toString(set.indices()) + " every "
                + config.everyEpochs() + " epoch(s)");
    }

    @Override
    public void afterEpoch(TrainingState state, StagePlan plan, EpochSummary summary) {
        if (set == null || !config.dueAfter(state.epoch, plan.stage.epochs())) {
            return;
        }
        if (running != null && !running.isDone()) {
            if (!toldSkipped) {
                toldSkipped = true;
                events.logLine("sample predictions: the last ones are still being made; this interval is skipped"
                        + " (raise logging.samples.everyEpochs to predict less often)");
            }
            return;
        }
        ComputationGraph model = net.get();
        if (replica == null || replicaOf != model) {
            // a new stage or tier may have built a new model
            replica = model.clone();
            replicaOf = model;
        } else {
            replica.setParams(model.params());
        }
        int device = Nd4j.getAffinityManager().getDeviceForCurrentThread();
        SamplesEvent where = new SamplesEvent(events.runName(), state.stageName, state.stageIndex, state.epoch, state.globalStep,
                System.currentTimeMillis(), state.elapsed(), set.data().task().json, interval++, List.of());
        SampleSet examples = set;
        ComputationGraph copy = replica;
        running = worker.submit(() -> {
            Nd4j.getAffinityManager().unsafeSetDevice(device);
            try {
                List<SamplesEvent.Sample> samples = predictor.predict(copy, examples, where.interval());
                events.publish(new SamplesEvent(where.runName(), where.stage(), where.stageIndex(), where.epoch(), where.step(),
                        System.currentTimeMillis(), where.elapsedSeconds(), where.task(), where.interval(), samples));
            } catch (RuntimeException e) {
                events.logLine("sample predictions failed after epoch " + (where.epoch() + 1) + ": " + e);
            }
        });
    }

    /** Waits for the last predictions (at most a minute), so that they are published before the run's events end. */
    @Override
    public void close() {
        worker.shutdown();
        try {
            if (!worker.awaitTermination(60, TimeUnit.SECONDS)) {
                events.logLine("sample predictions: the last ones did not finish within a minute and were dropped");
                worker.shutdownNow();
            }
        } catch (InterruptedException e) {
            worker.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
