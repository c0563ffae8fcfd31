package org.traindeck.engine.sweep;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.traindeck.engine.api.queue.QueueEntry;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.queue.QueueRunner;
import org.traindeck.engine.sinks.HParamsFiles;
import org.traindeck.engine.sinks.RunFolder;
import org.traindeck.engine.sinks.TfHParams;
import org.traindeck.engine.train.LiveRun;

/**
 * A sweep in TensorBoard's HParams dashboard ({@code tensorboard --logdir OUTPUT_DIR}): the experiment (parameters
 * and metric) in the output folder itself, TensorBoard's root run; each trial's values when it starts and its status
 * when it ends, in the trial's {@code tensorboard/} folder, the run its scalars are in. A stopped trial gets no end
 * record: TensorBoard keeps the first status it sees, and the trial will go on.
 */
public final class SweepHParams implements QueueRunner.Listener {

    private final SweepSpec spec;
    private final Map<String, SweepTrials.Trial> byLabel;
    private final Consumer<String> warn;

    public SweepHParams(SweepSpec spec, List<SweepTrials.Trial> trials, Consumer<String> warn) {
        this.spec = spec;
        this.byLabel = trials.stream().collect(Collectors.toMap(SweepTrials.Trial::label, Function.identity()));
        this.warn = warn;
    }

    private String suffix() {
        return "sweep-" + spec.name() + ".hparams";
    }

    /** Writes the experiment into {@code outputDir} unless this sweep's is there already. */
    public void writeExperiment(Path outputDir) {
        try {
            if (HParamsFiles.exists(outputDir, suffix())) {
                return;
            }
            List<TfHParams.Param> params = new ArrayList<>();
            for (String name : spec.parameterOrder()) {
                SweepSpec.Values v = spec.parameters().get(name);
                params.add(
                        v instanceof SweepSpec.Listed l
                                ? new TfHParams.Param(name, l.values(), 0, 0)
                                : new TfHParams.Param(
                                        name, null, ((SweepSpec.Range) v).min(), ((SweepSpec.Range) v).max()));
            }
            HParamsFiles.write(
                    outputDir,
                    suffix(),
                    List.of(TfHParams.experiment(
                            System.currentTimeMillis() / 1000.0, spec.name(), params, List.of(spec.metric()))));
        } catch (IOException e) {
            warn.accept(
                    "the TensorBoard HParams experiment could not be written to " + outputDir + ": " + e.getMessage());
        }
    }

    @Override
    public void starting(QueueEntry entry, LiveRun run, boolean resumed) {
        SweepTrials.Trial trial = byLabel.get(entry.label());
        if (trial == null || !run.config().logging().tensorboard()) {
            return;
        }
        Path folder = RunFolder.of(run.runDir()).tensorboard();
        try {
            if (!HParamsFiles.exists(folder, "session.hparams")) {
                HParamsFiles.write(
                        folder,
                        "session.hparams",
                        List.of(TfHParams.sessionStart(System.currentTimeMillis() / 1000.0, trial.values(), "")));
            }
        } catch (IOException e) {
            warn.accept(entry.label() + ": the TensorBoard HParams session could not be written: " + e.getMessage());
        }
    }

    @Override
    public void ended(QueueEntry entry, RunResult result) {
        if (result == null || result.status() == RunResult.Status.STOPPED || !byLabel.containsKey(entry.label())) {
            return;
        }
        Path folder = RunFolder.of(result.runDir()).tensorboard();
        try {
            if (HParamsFiles.exists(folder, "session.hparams") && !HParamsFiles.exists(folder, "end.hparams")) {
                HParamsFiles.write(
                        folder,
                        "end.hparams",
                        List.of(TfHParams.sessionEnd(
                                System.currentTimeMillis() / 1000.0,
                                result.status() == RunResult.Status.FAILED
                                        ? TfHParams.Status.FAILURE
                                        : TfHParams.Status.SUCCESS)));
            }
        } catch (IOException e) {
            warn.accept(
                    entry.label() + ": the TensorBoard HParams session end could not be written: " + e.getMessage());
        }
    }
}
