package org.traindeck.engine.sinks;

import java.nio.file.Path;
import java.util.List;

/**
 * The one place that names a run folder's files and folders: every reader and writer asks it for a path instead of
 * spelling the name, so a file is renamed or added here only. {@link RunDirectory} creates the folder itself.
 */
public record RunFolder(Path dir) {

    public static final String CONFIG = "config.json";
    public static final String RESUME_CONFIG_PREFIX = "config.resume-";
    public static final String METRICS_JSONL = "metrics.jsonl";
    public static final String METRICS_CSV = "metrics.csv";
    public static final String LOG = "train.log";
    public static final String STATUS = "status.json";
    /** The energy the run's devices used, by device and stage, or why it could not be measured. */
    public static final String ENERGY = "energy.json";

    public static final String HISTOGRAMS = "histograms.jsonl";
    public static final String EVALUATION = "evaluation.json";
    public static final String EVALUATION_EMA = "evaluation-ema.json";
    public static final String VOCABULARY = "vocabulary.json";
    /** The range of the values the first stage's network was trained on, for predict's warning on inputs far outside. */
    public static final String INPUT_RANGE = "input-range.json";

    public static final String RUN_ID = "run-id";
    public static final String LOCK = ".traindeck.lock";
    public static final String SAMPLES = "samples";
    public static final String TENSORBOARD = "tensorboard";
    public static final String CHECKPOINTS = "checkpoints";
    public static final String CRASH = "crash";

    /** Every name above, for a check that no other production file spells one. */
    public static final List<String> NAMES = List.of(
            CONFIG,
            METRICS_JSONL,
            METRICS_CSV,
            LOG,
            STATUS,
            ENERGY,
            HISTOGRAMS,
            EVALUATION,
            EVALUATION_EMA,
            VOCABULARY,
            INPUT_RANGE,
            RUN_ID,
            LOCK,
            SAMPLES,
            TENSORBOARD,
            CHECKPOINTS,
            CRASH);

    public RunFolder {
        if (dir == null) {
            throw new IllegalArgumentException("a run folder needs a path");
        }
    }

    public static RunFolder of(Path dir) {
        return new RunFolder(dir);
    }

    /** The resolved config the run started with. */
    public Path config() {
        return dir.resolve(CONFIG);
    }

    /** The config of the {@code attempt}-th resume (1, 2, ...). */
    public Path resumeConfig(int attempt) {
        return dir.resolve(RESUME_CONFIG_PREFIX + attempt + ".json");
    }

    public Path metricsJsonl() {
        return dir.resolve(METRICS_JSONL);
    }

    public Path metricsCsv() {
        return dir.resolve(METRICS_CSV);
    }

    public Path log() {
        return dir.resolve(LOG);
    }

    public Path status() {
        return dir.resolve(STATUS);
    }

    public Path energy() {
        return dir.resolve(ENERGY);
    }

    public Path histograms() {
        return dir.resolve(HISTOGRAMS);
    }

    /** {@code evaluation.json}, or {@code evaluation-ema.json} for the weight average. */
    public Path evaluation(boolean ema) {
        return dir.resolve(ema ? EVALUATION_EMA : EVALUATION);
    }

    public Path vocabulary() {
        return dir.resolve(VOCABULARY);
    }

    public Path inputRange() {
        return dir.resolve(INPUT_RANGE);
    }

    public Path runId() {
        return dir.resolve(RUN_ID);
    }

    public Path lock() {
        return dir.resolve(LOCK);
    }

    public Path samples() {
        return dir.resolve(SAMPLES);
    }

    public Path tensorboard() {
        return dir.resolve(TENSORBOARD);
    }

    public Path checkpoints() {
        return dir.resolve(CHECKPOINTS);
    }

    /** Where a trial process's JVM crash logs and stderr go. */
    public Path crash() {
        return dir.resolve(CRASH);
    }

    /** Whether {@code path} names a run's checkpoints folder (a user may point at it instead of the run). */
    public static boolean isCheckpointsFolder(Path path) {
        return path != null
                && path.getFileName() != null
                && CHECKPOINTS.equals(path.getFileName().toString());
    }
}
