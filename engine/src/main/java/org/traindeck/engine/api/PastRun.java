package org.traindeck.engine.api;

import java.nio.file.Path;
import java.util.List;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.HistogramEvent;
import org.traindeck.engine.events.SamplesEvent;

/**
 * A run read back from its folder.
 *
 * @param config  the run's own config.json, or null when it is missing or no longer valid (moved data files)
 * @param history    its events in order, each series reduced to its lows and highs per step range (every spike kept)
 * @param histograms the last histograms of each layer's weights and gradients (a few steps per layer and quantity), by
 *                   step; empty when the run took none
 * @param samples    the sample predictions its folder keeps (samples/), in order; empty when it made none
 */
public record PastRun(
        Path runDir,
        RunConfig config,
        List<EngineEvent> history,
        List<HistogramEvent> histograms,
        List<SamplesEvent> samples) {

    public PastRun {
        history = List.copyOf(history);
        histograms = List.copyOf(histograms);
        samples = samples == null ? List.of() : List.copyOf(samples);
    }

    /** A run without sample predictions. */
    public PastRun(Path runDir, RunConfig config, List<EngineEvent> history, List<HistogramEvent> histograms) {
        this(runDir, config, history, histograms, List.of());
    }

    /** The run's name as the user knows it: the config's name and the folder. */
    public String displayName() {
        return config == null
                ? String.valueOf(runDir.getFileName())
                : config.name() + " (" + runDir.getFileName() + ")";
    }
}
