package org.traindeck.engine.api;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import org.traindeck.engine.api.queue.QueueEntry;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.ValidationResult;
import org.traindeck.engine.config.read.ConfigWriter;
import org.traindeck.engine.queue.QueueRunner;
import org.traindeck.engine.queue.RunQueue;
import org.traindeck.engine.queue.RunStarter;

/** The queue of an output folder: runs added after a start's checks, reordered, removed, and run one after another. */
public final class RunQueues {

    /** A config as a run's start would take it, or the refusals that stop it. */
    private final Function<ValidationResult, RunConfig> runnable;

    /** How the queue's runs start: in this process, on the engine's devices. */
    private final Supplier<RunStarter> starters;

    RunQueues(Function<ValidationResult, RunConfig> runnable, Supplier<RunStarter> starters) {
        this.runnable = runnable;
        this.starters = starters;
    }

    /** The file that holds the queue of an output folder. */
    public static Path file(Path outputDir) {
        return outputDir.resolve(RunQueue.DEFAULT_FILE);
    }

    /**
     * Adds a copy of a config (as it is now) to the queue in its output folder, after the checks a run's start makes:
     * a model that does not build or a stage that does not fit is refused now, not when the queue reaches it.
     *
     * @throws InvalidConfigException every problem that would stop the run, a line each
     */
    public QueueEntry add(RunConfig config) throws IOException {
        return add(new ValidationResult(config, List.of()), null);
    }

    /** The same for a config read from a file ({@code traindeck queue add}): refusals give their line, the entry its source. */
    public QueueEntry add(ValidationResult parsed, Path source) throws IOException {
        RunConfig config = runnable.apply(parsed);
        return RunQueue.add(
                file(config.outputPath()),
                config.name(),
                source == null ? null : source.toAbsolutePath().toString(),
                ConfigWriter.toJsonWithAbsolutePaths(config));
    }

    /** The queue in an output folder (empty when it has none). */
    public List<QueueEntry> entries(Path outputDir) throws IOException {
        return RunQueue.open(file(outputDir)).entries();
    }

    /** Takes entry {@code id} out of an output folder's queue (refused while it runs); its run folder, if any, stays. */
    public QueueEntry remove(Path outputDir, int id) throws IOException {
        return RunQueue.remove(file(outputDir), id);
    }

    /** Moves waiting entry {@code id} of an output folder's queue to {@code position} (0 = first, clamped to the ends). */
    public void move(Path outputDir, int id, int position) throws IOException {
        RunQueue.move(file(outputDir), id, position);
    }

    /**
     * Runs the queue in an output folder on a thread of its own, one run after another, resuming interrupted runs;
     * only one process runs a queue at a time (the handle completes exceptionally when another does).
     */
    public QueueHandle run(Path outputDir, QueueListener listener) {
        return run(outputDir, null, listener);
    }

    /** As {@link #run(Path, QueueListener)}, every run on {@code devices} (null: each run's own). */
    public QueueHandle run(Path outputDir, DeviceSelection devices, QueueListener listener) {
        return QueueHandle.start(new QueueRunner(file(outputDir), devices, starters.get()), listener, null);
    }
}
