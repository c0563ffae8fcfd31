package org.traindeck.engine.train;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.traindeck.engine.events.EventBus;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.MetricNames;
import org.traindeck.engine.sinks.RunLogSink;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Publishes a run's events, stamped with where the run is, without waiting on any listener; keeps the last value of
 * each epoch-level metric for the run's result; writes lines to the run log.
 */
final class RunEvents {

    private static final Logger LOG = LoggerFactory.getLogger(RunEvents.class);

    private final String runName;
    private final Path runDir;
    private final EventBus bus;
    private final RunLogSink log;
    private final Map<String, Double> lastMetrics = Collections.synchronizedMap(new LinkedHashMap<>());
    private volatile TrainingState state;

    RunEvents(String runName, Path runDir, EventBus bus, RunLogSink log) {
        this.runName = runName;
        this.runDir = runDir;
        this.bus = bus;
        this.log = log;
    }

    RunLogSink log() {
        return log;
    }

    Path runDir() {
        return runDir;
    }

    void attach(TrainingState state) {
        this.state = state;
    }

    void metric(String name, double value, String device) {
        if (!name.equals(MetricNames.TRAIN_LOSS) && !name.equals(MetricNames.LR) && !name.equals(MetricNames.GRAD_NORM)
                && device == null) {
            lastMetrics.put(name, value);
        }
        TrainingState s = state;
        bus.publish(new MetricEvent(runName, s == null ? "" : s.stageName, s == null ? 0 : s.stageIndex, s == null ? 0 : s.epoch,
                s == null ? 0 : s.globalStep, System.currentTimeMillis(), s == null ? 0 : s.elapsed(), name, value, device));
    }

    void lifecycle(LifecycleEvent.Kind kind, String message) {
        TrainingState s = state;
        bus.publish(new LifecycleEvent(runName, s == null ? "" : s.stageName, s == null ? 0 : s.stageIndex, s == null ? 0 : s.epoch,
                s == null ? 0 : s.globalStep, System.currentTimeMillis(), s == null ? 0 : s.elapsed(), kind, message));
    }

    void logLine(String text) {
        try {
            log.line(text);
        } catch (IOException e) {
            LOG.warn("cannot write the run log: {}", e.getMessage());
        }
    }

    Map<String, Double> lastMetrics() {
        synchronized (lastMetrics) {
            return new LinkedHashMap<>(lastMetrics);
        }
    }
}
