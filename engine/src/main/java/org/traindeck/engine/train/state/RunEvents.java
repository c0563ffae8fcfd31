package org.traindeck.engine.train.state;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.EventBus;
import org.traindeck.engine.events.HistogramEvent;
import org.traindeck.engine.events.LayerMetrics;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.MetricNames;
import org.traindeck.engine.events.RunEvent;
import org.traindeck.engine.sinks.RunFolder;
import org.traindeck.engine.sinks.RunLogSink;
import org.traindeck.engine.train.health.HistogramData;

/**
 * Publishes a run's events, stamped with where the run is, without waiting on any listener; keeps the last value of
 * each epoch-level metric for the run's result; writes lines to the run log.
 */
public final class RunEvents {

    private static final Logger LOG = LoggerFactory.getLogger(RunEvents.class);

    private final String runName;
    private final Path runDir;
    private final EventBus bus;
    private final RunLogSink log;
    private final Map<String, Double> lastMetrics = Collections.synchronizedMap(new LinkedHashMap<>());
    private final Map<String, String> fileProblems = Collections.synchronizedMap(new LinkedHashMap<>());
    private volatile TrainingState state;

    public RunEvents(String runName, Path runDir, EventBus bus, RunLogSink log) {
        this.runName = runName;
        this.runDir = runDir;
        this.bus = bus;
        this.log = log;
    }

    public RunLogSink log() {
        return log;
    }

    public Path runDir() {
        return runDir;
    }

    public void attach(TrainingState state) {
        this.state = state;
    }

    public void metric(String name, double value, String device) {
        bus.publish(stamped(name, value, device));
    }

    /**
     * Metrics of one moment (a logging step's), published together by {@link Together#publish}: each listener's
     * thread is woken once for them instead of once for each.
     */
    public Together together() {
        return new Together();
    }

    /** Metrics gathered to be published together, in the order they were added. */
    public final class Together {
        private final List<EngineEvent> metrics = new ArrayList<>(8);

        private Together() {}

        public Together metric(String name, double value, String device) {
            metrics.add(stamped(name, value, device));
            return this;
        }

        public void publish() {
            bus.publishAll(metrics);
        }
    }

    /** The metric stamped with where the run is; keeps the last value of an epoch-level one for the run's result. */
    private MetricEvent stamped(String name, double value, String device) {
        if (!name.equals(MetricNames.TRAIN_LOSS)
                && !name.equals(MetricNames.LR)
                && !name.equals(MetricNames.GRAD_NORM)
                && device == null
                && !LayerMetrics.isLayerMetric(name)) {
            lastMetrics.put(name, value);
        }
        TrainingState s = state;
        return new MetricEvent(
                runName,
                s == null ? "" : s.stageName,
                s == null ? 0 : s.stageIndex,
                s == null ? 0 : s.epoch,
                s == null ? 0 : s.globalStep,
                System.currentTimeMillis(),
                s == null ? 0 : s.elapsed(),
                name,
                value,
                device);
    }

    public void histogram(String node, String quantity, HistogramData h) {
        TrainingState s = state;
        bus.publish(new HistogramEvent(
                runName,
                s == null ? "" : s.stageName,
                s == null ? 0 : s.stageIndex,
                s == null ? 0 : s.epoch,
                s == null ? 0 : s.globalStep,
                System.currentTimeMillis(),
                s == null ? 0 : s.elapsed(),
                node,
                quantity,
                h.min(),
                h.max(),
                h.count(),
                h.sum(),
                h.sumSquares(),
                h.limits(),
                h.counts()));
    }

    public String runName() {
        return runName;
    }

    /** An event stamped by its maker (sample predictions made on another thread, for the step they were taken at). */
    public void publish(RunEvent event) {
        bus.publish(event);
    }

    public void lifecycle(LifecycleEvent.Kind kind, String message) {
        TrainingState s = state;
        bus.publish(new LifecycleEvent(
                runName,
                s == null ? "" : s.stageName,
                s == null ? 0 : s.stageIndex,
                s == null ? 0 : s.epoch,
                s == null ? 0 : s.globalStep,
                System.currentTimeMillis(),
                s == null ? 0 : s.elapsed(),
                kind,
                message));
    }

    public void logLine(String text) {
        try {
            log.line(text);
        } catch (IOException e) {
            LOG.warn("cannot write the run log: {}", e.getMessage());
            fileFailed(RunFolder.LOG, e);
        }
    }

    /**
     * A file of the run could not be written: the user is told at once (event, log) and the run ends INCOMPLETE.
     * Once per file.
     */
    public void fileFailed(String file, Exception e) {
        String why = e.getMessage() == null ? e.toString() : e.getMessage();
        if (fileProblems.putIfAbsent(file, why) == null) {
            TrainingState s = state;
            LOG.error("{} could not be written: {}", file, why);
            lifecycle(
                    LifecycleEvent.Kind.FILE_WRITE_FAILED,
                    file + " could not be written" + (why.contains("No space left") ? " (the disk is full)" : "")
                            + ": " + why + ". Training goes on, but that file is incomplete from step "
                            + (s == null ? 0 : s.globalStep)
                            + "; free some space, then resume from the last checkpoint to have complete files");
        }
    }

    /** A checkpoint that could not be written: the user is told at once, and the run ends INCOMPLETE. */
    public void checkpointFailed(String message, String why) {
        fileProblems.putIfAbsent(RunFolder.CHECKPOINTS, why);
        lifecycle(LifecycleEvent.Kind.FILE_WRITE_FAILED, message);
    }

    /** The files that could not be written, and why. */
    public Map<String, String> fileProblems() {
        synchronized (fileProblems) {
            return new LinkedHashMap<>(fileProblems);
        }
    }

    public Map<String, Double> lastMetrics() {
        synchronized (lastMetrics) {
            return new LinkedHashMap<>(lastMetrics);
        }
    }
}
