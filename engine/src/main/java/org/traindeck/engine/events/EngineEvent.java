package org.traindeck.engine.events;

/**
 * What the engine publishes: a run's metric values and lifecycle changes ({@link RunEvent}), and device telemetry,
 * which belongs to no run.
 */
public sealed interface EngineEvent permits RunEvent, TelemetryEvent {

    /** Milliseconds since the Unix epoch. */
    long wallTimeMillis();
}
