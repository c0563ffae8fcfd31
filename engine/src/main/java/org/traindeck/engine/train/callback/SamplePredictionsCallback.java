package org.traindeck.engine.train.callback;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.config.SamplesConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.events.SamplesEvent;
import org.traindeck.engine.train.batch.StagePlan;
import org.traindeck.engine.train.samples.SamplePredictor;
import org.traindeck.engine.train.samples.SampleSet;
import org.traindeck.engine.train.state.RunEvents;
import org.traindeck.engine.train.state.TrainingState;

/**
 * Sample predictions ({@code logging.samples}): at each interval the training thread copies the weights (no forward
 * pass), and a worker thread loads them into a replica of the model, predicts the stage's fixed examples with it in
 * inference mode and publishes them ({@link SamplesEvent}) while training goes on. At most one interval waits behind
 * the one being predicted; a newer one takes its place, so a slow prediction never holds the training back nor piles
 * up, and the last interval of a stage is always predicted.
 */
public final class SamplePredictionsCallback implements TrainingCallback, AutoCloseable {

    private final SamplesConfig config;
    private final long seed;
    private final RunEvents events;
    private final Supplier<ComputationGraph> net;
    private final SamplePredictor predictor;
    private final ThreadPoolExecutor worker;
    private SampleSet set;
    private ComputationGraph replica;
    private ComputationGraph replicaOf;
    private int interval;
    private volatile boolean toldSkipped;

    public SamplePredictionsCallback(
            SamplesConfig config,
            long seed,
            RunEvents events,
            Supplier<ComputationGraph> net,
            SamplePredictor predictor) {
        this.config = config;
        this.seed = seed;
        this.events = events;
        this.net = net;
        this.predictor = predictor;
        this.worker = new ThreadPoolExecutor(
                1,
                1,
                0,
                TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(1),
                r -> {
                    Thread t = new Thread(r, "traindeck-samples");
                    t.setDaemon(true);
                    return t;
                },
                this::replaced);
    }

    @Override
    public void onStageStart(TrainingState state, StagePlan plan) {
        set = null;
        if (plan.data.validation() == null) {
            events.logLine("sample predictions: stage \"" + plan.stage.name()
                    + "\" has no validation data to take examples from");
            return;
        }
        if (plan.data.validation().task() == Task.DIFFUSION) {
            // one forward pass denoises one timestep: the pictures are validation's samples (DiffusionSamplingCallback)
            boolean sampled = DiffusionSamplingCallback.options(plan.data.validation(), plan.data.train())
                            .sampling()
                    != null;
            events.logLine("sample predictions: stage \"" + plan.stage.name() + "\" shows "
                    + (sampled
                            ? "the samples validation generates (diffusion.sampling)"
                            : "none: a diffusion model's pictures are validation's samples, which need"
                                    + " \"sampling\" in the source's \"diffusion\" block"));
            return;
        }
        set = SampleSet.choose(plan.data.validation(), config.count(), seed, plan.images, plan.dataType);
        if (set.size() == 0) {
            set = null;
            return;
        }
        events.logLine("sample predictions: validation examples " + Arrays.toString(set.indices()) + " every "
                + config.everyEpochs() + " epoch(s)");
    }

    @Override
    public void afterEpoch(TrainingState state, StagePlan plan, EpochSummary summary) {
        if (set == null || !config.dueAfter(state.epoch, plan.stage.epochs())) {
            return;
        }
        long copyStart = System.nanoTime();
        ComputationGraph model = net.get();
        if (replica == null || replicaOf != model) {
            // a new stage or tier may have built a new model
            replica = model.clone();
            replicaOf = model;
        }
        INDArray weights = model.params().dup();
        double copyMs = (System.nanoTime() - copyStart) / 1e6;
        int device = Nd4j.getAffinityManager().getDeviceForCurrentThread();
        SamplesEvent where = new SamplesEvent(
                events.runName(),
                state.stageName,
                state.stageIndex,
                state.epoch,
                state.globalStep,
                System.currentTimeMillis(),
                state.elapsed(),
                set.data().task().json,
                interval++,
                List.of());
        SampleSet examples = set;
        ComputationGraph copy = replica;
        worker.execute(() -> {
            Nd4j.getAffinityManager().unsafeSetDevice(device);
            try {
                long start = System.nanoTime();
                copy.setParams(weights);
                List<SamplesEvent.Sample> samples = predictor.predict(copy, examples, where.interval());
                if (where.interval() == 0) {
                    events.logLine(String.format(
                            Locale.ROOT,
                            "sample predictions: %d example(s) predicted in %.2f s on their own thread;"
                                    + " the training thread copied the weights in %.1f ms",
                            samples.size(),
                            (System.nanoTime() - start) / 1e9,
                            copyMs));
                }
                events.publish(new SamplesEvent(
                        where.runName(),
                        where.stage(),
                        where.stageIndex(),
                        where.epoch(),
                        where.step(),
                        System.currentTimeMillis(),
                        where.elapsedSeconds(),
                        where.task(),
                        where.interval(),
                        samples));
            } catch (RuntimeException e) {
                events.logLine("sample predictions failed after epoch " + (where.epoch() + 1) + ": " + e);
            }
        });
    }

    /** A newer interval came while one was waiting: the waiting one is dropped for it. */
    private void replaced(Runnable newer, ThreadPoolExecutor executor) {
        if (executor.isShutdown()) {
            return;
        }
        executor.getQueue().poll();
        executor.execute(newer);
        if (!toldSkipped) {
            toldSkipped = true;
            events.logLine("sample predictions: an interval was skipped, the one before it still being predicted"
                    + " (raise logging.samples.everyEpochs to predict less often)");
        }
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
