package org.traindeck.engine.events;

/**
 * What the engine publishes while it runs: metric values and lifecycle changes. Every event carries where in the
 * run it happened: stage (name and 0-based index), epoch (0-based within the stage), global optimizer step and
 * wall time.
 */
public sealed interface EngineEvent permits MetricEvent, LifecycleEvent, TelemetryEvent {

    String runName();

    String stage();

    int stageIndex();

    int epoch();

    long step();

    /** Milliseconds since the Unix epoch. */
    long wallTimeMillis();

    /** Seconds of training so far in this run (continues across resumes). */
    double elapsedSeconds();
}
