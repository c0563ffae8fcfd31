package org.traindeck.engine.api;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.traindeck.engine.api.library.ImportedRun;
import org.traindeck.engine.api.library.TagMapping;
import org.traindeck.engine.api.library.TagSeries;
import org.traindeck.engine.api.runs.RunSummary;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.MetricNames;
import org.traindeck.engine.library.HistoryReduction;
import org.traindeck.engine.library.RunComparison;
import org.traindeck.engine.library.tfevents.EventFileException;
import org.traindeck.engine.library.tfevents.TensorBoardLogs;
import org.traindeck.engine.sinks.RunFolder;

/**
 * Runs another tool logged for TensorBoard (PyTorch's SummaryWriter, TensorFlow's summaries), opened read-only beside
 * TrainDeck's: listed, overlaid on the charts and compared, their tags read as TrainDeck's metrics through a
 * {@link TagMapping}. Reading takes time (files): never on the FX thread.
 */
public final class TensorBoardRuns {

    private TensorBoardRuns() {}

    /**
     * An {@code events.out.tfevents.*} file, or a folder of them, read as a run.
     *
     * @throws EventFileException a damaged record (file and byte), no event files, or logs over the reading limits
     */
    public static ImportedRun open(Path fileOrFolder) throws IOException {
        return TensorBoardLogs.open(fileOrFolder);
    }

    /** Whether {@code path} is TensorBoard logs rather than a TrainDeck run folder (which holds its own in tensorboard/). */
    public static boolean isLog(Path path) {
        return !Files.isRegularFile(RunFolder.of(path).config()) && TensorBoardLogs.holdsEvents(path);
    }

    /**
     * The run's curves as TrainDeck metrics under {@code mapping}, each series reduced to its lows and highs per step
     * range as a past run's history is (every spike kept, bounded whatever the logs' length).
     */
    public static List<EngineEvent> history(ImportedRun run, TagMapping mapping) {
        HistoryReduction reduction = new HistoryReduction();
        run.forEachEvent(mapping, reduction::add);
        return reduction.events();
    }

    /**
     * The run as a row of the runs table: status {@link ImportedRun#STATUS}, judged by its validation loss when a tag
     * maps to it, else its training loss; no energy.
     */
    public static RunSummary summary(ImportedRun run, TagMapping mapping) {
        String monitor =
                run.series(MetricNames.VAL_LOSS, mapping) != null ? MetricNames.VAL_LOSS : MetricNames.TRAIN_LOSS;
        TagSeries s = run.series(monitor, mapping);
        return new RunSummary(
                run.name(),
                run.source(),
                ImportedRun.STATUS,
                run.steps(),
                monitor,
                s == null ? Double.NaN : s.lowest(),
                s == null ? Double.NaN : s.last(),
                run.elapsedSeconds(),
                run.startedMillis(),
                Double.NaN,
                "another tool's run");
    }

    /** TrainDeck's runs and imported ones side by side (the imported after), their tags read under {@code mapping}. */
    public static RunComparison.Result compare(List<Path> runDirs, List<ImportedRun> imported, TagMapping mapping)
            throws IOException {
        return RunComparison.compare(
                runDirs,
                imported.stream()
                        .map(r -> new RunComparison.Other(r.name(), each -> r.forEachEvent(mapping, each)))
                        .toList());
    }
}
