package org.traindeck.engine.train.callback;

import java.util.Locale;
import java.util.function.Supplier;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.config.DiffusionConfig;
import org.traindeck.engine.config.DiffusionSampling;
import org.traindeck.engine.config.SamplesConfig;
import org.traindeck.engine.data.Dataset;
import org.traindeck.engine.events.SamplesEvent;
import org.traindeck.engine.train.batch.StagePlan;
import org.traindeck.engine.train.diffusion.ValidationSampler;
import org.traindeck.engine.train.samples.DiffusionPictures;
import org.traindeck.engine.train.state.RunEvents;
import org.traindeck.engine.train.state.TrainingState;

/**
 * Validation's sampling of a diffusion model ({@code diffusion.sampling}): every few epochs and at each stage's last,
 * samples generated for the first validation examples with the stage's weight average when it keeps one (as predict
 * uses it), their scores published with the validation metrics (before the checkpoint policy, which may judge by
 * them), and with {@code logging.samples} the same samples shown as the sample predictions: a diffusion model is never
 * sampled twice in one epoch.
 */
public final class DiffusionSamplingCallback implements TrainingCallback {

    private final RunEvents events;
    private final Supplier<ComputationGraph> net;
    private final WeightEma ema;
    private final long seed;
    private final SamplesConfig pictures;
    private ValidationSampler.Generated last;
    private int interval;

    public DiffusionSamplingCallback(
            RunEvents events, Supplier<ComputationGraph> net, WeightEma ema, long seed, SamplesConfig pictures) {
        this.events = events;
        this.net = net;
        this.ema = ema;
        this.seed = seed;
        this.pictures = pictures;
    }

    @Override
    public void onEpochEnd(TrainingState state, StagePlan plan, EpochSummary summary) {
        last = null;
        Dataset validation = plan.data.validation();
        DiffusionConfig options = validation == null ? null : options(validation, plan.data.train());
        DiffusionSampling s = options == null ? null : options.sampling();
        if (s == null || !s.dueAfter(state.epoch, plan.stage.epochs())) {
            return;
        }
        long start = System.nanoTime();
        ComputationGraph model = net.get();
        boolean average = ema.active();
        INDArray raw = average ? ema.swapIn(model) : null;
        ValidationSampler.Generated g;
        try {
            g = ValidationSampler.generate(
                    inputs -> model.output(false, inputs)[0],
                    validation,
                    options,
                    seed,
                    plan.dataType,
                    () -> state.stopRequested);
        } finally {
            if (average) {
                ema.swapBack(model, raw);
            }
        }
        if (g == null) {
            throw new ValidationStopped();
        }
        g.metrics().forEach((name, value) -> events.metric(name, value, null));
        summary.metrics().putAll(g.metrics());
        events.logLine(String.format(
                Locale.ROOT,
                "sampled %d validation example(s) after epoch %d (%s, %d steps%s) in %.1f s: %s",
                g.count(),
                state.epoch + 1,
                s.sampler(),
                s.steps(),
                average ? ", the weight average" : "",
                (System.nanoTime() - start) / 1e9,
                String.join(
                        ", ",
                        g.metrics().entrySet().stream()
                                .map(e -> String.format(Locale.ROOT, "%s %.4g", e.getKey(), e.getValue()))
                                .toList())));
        last = g;
    }

    /**
     * How to sample: the validation source's diffusion options when they ask for sampling, else the training source's
     * (a validation split is the training source's; a validation source of its own may leave sampling out).
     */
    static DiffusionConfig options(Dataset validation, Dataset train) {
        if (validation.diffusion() == null || validation.diffusion().sampling() != null) {
            return validation.diffusion();
        }
        return train.diffusion();
    }

    /** The samples just generated, as the sample predictions' pictures. */
    @Override
    public void afterEpoch(TrainingState state, StagePlan plan, EpochSummary summary) {
        if (last == null || !pictures.on()) {
            return;
        }
        events.publish(new SamplesEvent(
                events.runName(),
                state.stageName,
                state.stageIndex,
                state.epoch,
                state.globalStep,
                System.currentTimeMillis(),
                state.elapsed(),
                plan.data.validation().task().json,
                interval++,
                DiffusionPictures.of(last, plan.data.validation().shape(), pictures.count())));
        last = null;
    }
}
