package org.traindeck.engine.api;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.traindeck.engine.api.runs.EnergyReport;
import org.traindeck.engine.api.runs.RunSummary;
import org.traindeck.engine.checkpoint.Checkpoint;
import org.traindeck.engine.checkpoint.CheckpointStore;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.library.HistoryReduction;
import org.traindeck.engine.library.MetricsDigests;
import org.traindeck.engine.library.RunComparison;
import org.traindeck.engine.library.RunLibrary;
import org.traindeck.engine.sinks.HistogramsJsonlReader;
import org.traindeck.engine.sinks.MetricsJsonlReader;
import org.traindeck.engine.sinks.RunFolder;
import org.traindeck.engine.sinks.SamplesFileReader;

/** The runs an output folder holds, as their folders record them: listed, opened, compared, their checkpoints. */
public final class PastRuns {

    private final MetricsDigests digests;

    PastRuns(MetricsDigests digests) {
        this.digests = digests;
    }

    /**
     * A past (or running) run as its folder holds it: its own config and its metrics.jsonl, read line by line and
     * reduced to what a chart shows (each series' lowest and highest point per step range, every spike kept), so a
     * file of any size opens in bounded memory; and the last histograms of each layer from histograms.jsonl.
     */
    public PastRun open(Path runDir) throws IOException {
        HistoryReduction history = new HistoryReduction();
        MetricsJsonlReader.forEach(runDir, history::add);
        Path config = RunFolder.of(runDir).config();
        RunConfig own = Files.isRegularFile(config) ? Configs.load(config).config() : null;
        return new PastRun(
                runDir,
                own,
                history.events(),
                HistogramsJsonlReader.latest(runDir, HistogramsJsonlReader.KEPT_STEPS),
                SamplesFileReader.read(runDir, own == null ? String.valueOf(runDir.getFileName()) : own.name()));
    }

    /** The runs in an output folder, oldest first, each read from its own folder; empty when there is no such folder. */
    public List<RunSummary> list(Path outputDir) throws IOException {
        return Files.isDirectory(outputDir) ? RunLibrary.list(outputDir, digests) : List.of();
    }

    /**
     * The energy a run's devices used, as its folder records it: by device and by stage (with Wh per 1,000 samples),
     * or why it could not be measured ("no RAPL counters or GPU power readings").
     */
    public EnergyReport energy(Path runDir) throws IOException {
        return RunLibrary.energy(runDir, digests);
    }

    /** Final and best metrics of runs side by side, and the config keys whose values differ. */
    public RunComparison.Result compare(List<Path> runDirs) throws IOException {
        return RunComparison.compare(runDirs);
    }

    /** The config keys (JSON paths) whose values differ between runs, one value per run. */
    public Map<String, List<String>> configDifferences(List<Path> runDirs) throws IOException {
        return RunComparison.configDifferences(runDirs);
    }

    /** Every checkpoint in a run folder, oldest first, each valid or with the reason it cannot be resumed. */
    public List<Checkpoint.Listed> checkpoints(Path runDir) throws IOException {
        return new CheckpointStore(runDir).list();
    }

    /** The checkpoint a resume of the run would continue from: its newest valid regular one; empty when none is. */
    public Optional<Path> latestCheckpoint(Path runDir) throws IOException {
        return new CheckpointStore(runDir).latestValid().map(Checkpoint.Listed::file);
    }
}
