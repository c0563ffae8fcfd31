package org.traindeck.engine.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.api.queue.QueueEntry;
import org.traindeck.engine.api.queue.QueueOutcome;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.checkpoint.CheckpointException;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.MetricNames;

/** What the app does through the API, on real runs: start, watch, finish, read back, resume, and a refused resume. */
class EngineApiTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Engine engine = Engine.local();

    private static RunConfig config(Path dir, int epochs) {
        String json = """
                {"name": "api", "outputDir": "runs", "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "samples": 300, "features": 4}, "validationSplit": 0.2},
                 "stages": [{"name": "main", "epochs": %d, "batchSize": 20}]}
                """.formatted(epochs);
        return Configs.parse(json, dir).orThrow();
    }

    @Test
    void aRunStartedThroughTheApiTrainsReportsAndReadsBack(@TempDir Path dir) throws Exception {
        RunHandle run = engine.openRun(config(dir, 2));
        List<EngineEvent> seen = new CopyOnWriteArrayList<>();
        run.subscribe(seen::add);
        run.start();
        RunResult result = run.completion().get(2, TimeUnit.MINUTES);

        assertThat(result.status()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(result.runDir()).isEqualTo(run.runDir());
        assertThat(run.currentStep()).isEqualTo(result.steps()).isEqualTo(24);
        assertThat(seen)
                .anySatisfy(e -> assertThat(e)
                        .isInstanceOfSatisfying(
                                MetricEvent.class, m -> assertThat(m.name()).isEqualTo(MetricNames.TRAIN_LOSS)));

        PastRun past = engine.pastRuns().open(run.runDir());
        // the folder's own config (paths made absolute there), not the one the app has open
        assertThat(past.config().stages()).isEqualTo(run.config().stages());
        assertThat(past.config().outputDir()).isEqualTo(dir.resolve("runs").toString());
        assertThat(past.displayName()).isEqualTo("api (" + run.runDir().getFileName() + ")");
        assertThat(past.history())
                .filteredOn(e -> e instanceof MetricEvent m && m.name().equals(MetricNames.TRAIN_LOSS))
                .hasSize(24);
        assertThat(past.history())
                .anySatisfy(e -> assertThat(e)
                        .isInstanceOfSatisfying(
                                LifecycleEvent.class,
                                l -> assertThat(l.kind()).isEqualTo(LifecycleEvent.Kind.RUN_FINISHED)));
    }

    @Test
    void aConcurrentSweepsTrialsTrainInTheirOwnProcessesAndTheAppHearsEachStartEndAndMetric(@TempDir Path dir)
            throws Exception {
        Files.writeString(dir.resolve("base.json"), """
                {"name": "base", "outputDir": "runs", "devices": "cpu:2", "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "samples": 300, "features": 4}, "validationSplit": 0.2},
                 "stages": [{"name": "main", "epochs": 2, "batchSize": 20}]}
                """);
        Files.writeString(dir.resolve("sweep.json"), """
                {"name": "app", "base": "base.json", "parameters": {"stages[0].optimizer.learningRate": [0.001, 0.01]},
                 "metric": "val/loss", "concurrent": 2}
                """);
        PreparedSweep sweep = engine.sweeps().prepare(dir.resolve("sweep.json"));
        List<String> started = new CopyOnWriteArrayList<>();
        List<String> ended = new CopyOnWriteArrayList<>();
        List<MetricEvent> losses = new CopyOnWriteArrayList<>();
        QueueHandle handle = engine.sweeps().run(sweep, new QueueListener() {
            @Override
            public void starting(QueueEntry entry, RunHandle run, boolean resumed) {
                started.add(entry.label());
                run.subscribe(e -> {
                    if (e instanceof MetricEvent m && m.name().equals(MetricNames.TRAIN_LOSS)) {
                        losses.add(m);
                    }
                });
            }

            @Override
            public void ended(QueueEntry entry, RunResult result) {
                ended.add(entry.label() + " " + result.status());
            }
        });
        QueueOutcome outcome = handle.completion().get(5, TimeUnit.MINUTES);

        assertThat(outcome.finished()).isEqualTo(2);
        assertThat(started).containsExactlyInAnyOrder("app-1", "app-2");
        assertThat(ended).containsExactlyInAnyOrder("app-1 FINISHED", "app-2 FINISHED");
        for (String trial : List.of("app-1", "app-2")) {
            // status.json names the process that trained the run
            assertThat(JSON.readTree(dir.resolve("runs")
                                    .resolve(trial)
                                    .resolve("status.json")
                                    .toFile())
                            .get("pid")
                            .asLong())
                    .as(trial + " trained outside this JVM")
                    .isNotEqualTo(ProcessHandle.current().pid());
        }
        // each trial's 2 epochs of 12 steps, read from its process as it trained
        assertThat(losses).hasSize(2 * 24);
    }

    @Test
    void theCompletionHandedOutCannotEndTheRun(@TempDir Path dir) throws Exception {
        RunHandle run = engine.openRun(config(dir, 1));
        run.completion().cancel(true);
        run.start();
        assertThat(run.completion().get(2, TimeUnit.MINUTES).status()).isEqualTo(RunResult.Status.FINISHED);
    }

    @Test
    void aResumeContinuesTheRunAndADamagedCheckpointChangesNothing(@TempDir Path dir) throws Exception {
        RunHandle first = engine.openRun(config(dir, 1));
        first.start();
        Path runDir = first.completion().get(2, TimeUnit.MINUTES).runDir();

        Path bad = dir.resolve("damaged.tdckpt");
        Files.write(bad, new byte[] {1, 2, 3});
        assertThatThrownBy(() -> engine.resume(bad)).isInstanceOf(CheckpointException.class);

        RunHandle resumed = engine.resume(runDir);
        assertThat(resumed.runDir()).isEqualTo(runDir);
        resumed.start();
        RunResult again = resumed.completion().get(2, TimeUnit.MINUTES);
        assertThat(again.steps()).isEqualTo(12); // the checkpoint was at the run's end: nothing left to train
    }

    @Test
    void choicesAndBoundsComeFromTheBundledSchema() {
        assertThat(Configs.choices("stages[].optimizer.type")).contains("adam", "sgd");
        assertThat(Configs.maxConfigBytes()).isEqualTo(1 << 20);
        assertThat(Engine.version()).isNotBlank();
    }
}
