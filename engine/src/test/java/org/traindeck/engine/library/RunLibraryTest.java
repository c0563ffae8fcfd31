package org.traindeck.engine.library;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.TestRuns;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.api.runs.RunSummary;
import org.traindeck.engine.cli.MainAccess;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.devices.NvidiaSmi;
import org.traindeck.engine.devices.OshiHostProbe;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.MetricNames;
import org.traindeck.engine.sinks.JsonlSink;
import org.traindeck.engine.sinks.RunFolder;
import org.traindeck.engine.sinks.RunStatusSink;
import org.traindeck.engine.train.RunRequest;
import org.traindeck.engine.train.TrainingRun;

/** An output folder read as a library of runs: listed with their state and metric, and compared. */
class RunLibraryTest {

    private static RunConfig config(Path dir, String name, double lr, int epochs) {
        return ConfigParser.parse("""
                {"name": "%s", "outputDir": "runs", "seed": 2, "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "samples": 300, "features": 4, "numClasses": 3}, "validationSplit": 0.2},
                 "stages": [{"epochs": %d, "batchSize": 20, "optimizer": {"type": "adam", "learningRate": %s}}],
                 "checkpoint": {"monitor": "val/accuracy"}}
                """.formatted(name, epochs, lr), dir).orThrow();
    }

    private static MainAccess.Result cli(String... args) {
        return MainAccess.run(new NvidiaSmi("", Duration.ofSeconds(1)), new OshiHostProbe(), args);
    }

    /** A segmentation monitored by its mean IoU had its lowest IoU listed as its best, and compare left the IoU out. */
    @Test
    void theBestOfAMonitoredMetricLiesInItsOwnDirection(@TempDir Path dir) throws Exception {
        Path run = Files.createDirectories(dir.resolve("runs/seg"));
        Files.writeString(RunFolder.of(run).config(), """
                {"name": "seg", "checkpoint": {"monitor": "%s"}}
                """.formatted(MetricNames.VAL_MEAN_IOU));
        StringBuilder metrics = new StringBuilder();
        double[] iou = {0.41, 0.78, 0.66};
        for (int epoch = 0; epoch < iou.length; epoch++) {
            metrics.append(JsonlSink.line(new MetricEvent(
                            "seg",
                            "main",
                            0,
                            epoch,
                            10L * (epoch + 1),
                            1_700_000_000_000L,
                            epoch,
                            MetricNames.VAL_MEAN_IOU,
                            iou[epoch],
                            null)))
                    .append('\n');
        }
        Files.writeString(RunFolder.of(run).metricsJsonl(), metrics);

        RunSummary seg = RunLibrary.list(dir.resolve("runs")).get(0);

        assertThat(seg.monitor()).isEqualTo(MetricNames.VAL_MEAN_IOU);
        assertThat(seg.best()).isEqualTo(0.78);
        assertThat(seg.last()).isEqualTo(0.66);
        // traindeck compare sets the task's own figures side by side, its best in the same direction
        RunComparison.Result compared = RunComparison.compare(List.of(run, run));
        assertThat(compared.metrics().get(MetricNames.VAL_MEAN_IOU))
                .containsExactly(new RunComparison.Value(0.66, 0.78), new RunComparison.Value(0.66, 0.78));
    }

    @Test
    void runsAreListedWithTheirStateAndComparedByTheirMetricsAndConfigs(@TempDir Path dir) throws Exception {
        RunResult slow =
                TrainingRun.open(RunRequest.of(config(dir, "slow", 0.001, 3))).runHere();
        RunResult fast =
                TrainingRun.open(RunRequest.of(config(dir, "fast", 0.01, 3))).runHere();
        RunResult stopped = TestRuns.stopAfterStep(config(dir, "stopped", 0.01, 3), 5);
        // a run that was killed: its status says running, but nothing holds its folder
        RunResult killed =
                TrainingRun.open(RunRequest.of(config(dir, "killed", 0.01, 1))).runHere();
        Path status = killed.runDir().resolve(RunStatusSink.FILE);
        Files.writeString(status, Files.readString(status).replace("\"finished\"", "\"running\""));

        List<RunSummary> runs = RunLibrary.list(dir.resolve("runs"));
        assertThat(runs).extracting(RunSummary::name).containsExactly("slow", "fast", "stopped", "killed");
        assertThat(runs)
                .extracting(RunSummary::status)
                .containsExactly("finished", "finished", "stopped", "interrupted");
        assertThat(runs.get(1).steps()).isEqualTo(fast.steps()).isEqualTo(36);
        assertThat(runs.get(1).monitor()).isEqualTo("val/accuracy");
        assertThat(runs.get(1).last()).isEqualTo(fast.lastMetrics().get("val/accuracy"));
        assertThat(runs.get(1).best()).isGreaterThanOrEqualTo(runs.get(1).last());
        assertThat(runs.get(2).steps()).isEqualTo(stopped.steps()).isEqualTo(5);

        MainAccess.Result table = cli("runs", dir.resolve("runs").toString());
        assertThat(table.exitCode()).isZero();
        assertThat(table.stdout())
                .contains("RUN")
                .contains("slow")
                .contains("interrupted")
                .contains("val/accuracy");
        MainAccess.Result json = cli("runs", dir.resolve("runs").toString(), "--json");
        JsonNode list = new ObjectMapper().readTree(json.stdout());
        assertThat(list).hasSize(4);
        assertThat(list.get(0).get("status").asText()).isEqualTo("finished");

        RunComparison.Result compared = RunComparison.compare(List.of(slow.runDir(), fast.runDir()));
        assertThat(compared.differences()).containsOnlyKeys("name", "stages[0].optimizer.learningRate");
        assertThat(compared.differences().get("stages[0].optimizer.learningRate"))
                .containsExactly("0.001", "0.01");
        assertThat(compared.metrics()).containsKeys("val/accuracy", "val/loss", "train/epoch_loss");
        MainAccess.Result side =
                cli("compare", slow.runDir().toString(), fast.runDir().toString());
        assertThat(side.exitCode()).isZero();
        assertThat(side.stdout())
                .contains("val/accuracy")
                .contains("config keys that differ:")
                .contains("stages[0].optimizer.learningRate");
        assertThat(cli("compare", slow.runDir().toString()).exitCode()).isEqualTo(2);
    }
}
