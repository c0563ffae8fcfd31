package org.traindeck.engine.events;

/**
 * What a library user (or a sink, or the app) hears of a run, one method per kind of moment, in the manner of DJL's
 * {@code TrainingListener}: override the ones you need and pass it to {@code RunHandle.subscribe} (or
 * {@code subscribeLossless}). Every method is called on the listener's own delivery thread, in the order the run
 * published its events; an exception is logged and the run goes on.
 *
 * <p>TrainDeck validates once an epoch (or every {@code validationEverySteps}), not batch by batch: {@link
 * #onValidation} hears each validation figure as the run publishes it. A figure is one {@link MetricEvent}; the more
 * specific methods are called first, then {@link #onMetric} or {@link #onLifecycle} with the same event, so a
 * listener that wants everything of a kind overrides only those.
 *
 * <p>It lives beside the events rather than in {@code engine.api} because the file sinks, which the API sits above,
 * are such listeners too.
 */
public interface TrainingListener extends EventListener {

    /** The run started, or resumed from a checkpoint ({@link LifecycleEvent.Kind#RUN_RESUMED}). */
    default void onTrainingBegin(LifecycleEvent begin) {}

    /** A stage began (its name, index and first step are on the event). */
    default void onStageBegin(LifecycleEvent stage) {}

    /** A logged training step: its {@link MetricNames#TRAIN_LOSS} (every {@code logging.everySteps} steps). */
    default void onTrainingBatch(MetricEvent loss) {}

    /** A validation figure: {@code val/loss}, the task's ({@code val/accuracy}, ...), the weight average's. */
    default void onValidation(MetricEvent figure) {}

    /** An epoch ended (after its validation and checkpoint). */
    default void onEpoch(LifecycleEvent epochFinished) {}

    /** The run ended: finished, stopped (with a checkpoint) or failed ({@link LifecycleEvent#message()} says why). */
    default void onTrainingEnd(LifecycleEvent end) {}

    /** Every metric, after the specific method above if any. */
    default void onMetric(MetricEvent metric) {}

    /** Every lifecycle change (warnings, checkpoints, fallbacks included), after the specific method above if any. */
    default void onLifecycle(LifecycleEvent event) {}

    /** A layer's weight or gradient histogram ({@code logging.layers.histogramsEverySteps}). */
    default void onHistogram(HistogramEvent histogram) {}

    /** Sample predictions on fixed validation examples ({@code logging.samples}). */
    default void onSamples(SamplesEvent samples) {}

    /** Device telemetry, when subscribed to the engine's telemetry rather than to a run. */
    default void onTelemetry(TelemetryEvent telemetry) {}

    /** Hands the event to the methods above; a listener overrides those, not this. */
    @Override
    default void onEvent(EngineEvent event) {
        if (event instanceof MetricEvent m) {
            if (m.name().equals(MetricNames.TRAIN_LOSS) && m.device() == null) {
                onTrainingBatch(m);
            } else if (MetricNames.isValidation(m.name())) {
                onValidation(m);
            }
            onMetric(m);
        } else if (event instanceof LifecycleEvent l) {
            switch (l.kind()) {
                case RUN_STARTED, RUN_RESUMED -> onTrainingBegin(l);
                case STAGE_STARTED -> onStageBegin(l);
                case EPOCH_FINISHED -> onEpoch(l);
                case RUN_FINISHED, RUN_STOPPED, RUN_FAILED -> onTrainingEnd(l);
                default -> {}
            }
            onLifecycle(l);
        } else if (event instanceof HistogramEvent h) {
            onHistogram(h);
        } else if (event instanceof SamplesEvent s) {
            onSamples(s);
        } else if (event instanceof TelemetryEvent t) {
            onTelemetry(t);
        }
    }
}
