package org.traindeck.engine.events;

/**
 * An event of a run, carrying where in the run it happened: stage (name and 0-based index), epoch (0-based within the
 * stage), global optimizer step, wall time and training time.
 */
public sealed interface RunEvent extends EngineEvent permits MetricEvent, LifecycleEvent, HistogramEvent, SamplesEvent {

    String runName();

    String stage();

    int stageIndex();

    int epoch();

    long step();

    /** Seconds of training so far in this run (continues across resumes). */
    double elapsedSeconds();
}
