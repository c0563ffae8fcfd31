package org.traindeck.engine.library;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.api.runs.RunSummary;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.train.RunRequest;
import org.traindeck.engine.train.TrainingRun;

/** A run's metrics are read again only when its metrics.jsonl changed; what a listing says stays the same. */
class MetricsDigestsTest {

    @Test
    void anUnchangedRunIsReadOnceAndAGrownOneAgain(@TempDir Path dir) throws Exception {
        RunResult run = TrainingRun.open(
                        RunRequest.of(ConfigParser.parse("""
                {"name": "digest", "outputDir": "runs", "seed": 3, "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "samples": 200, "features": 4, "numClasses": 3}, "validationSplit": 0.2},
                 "stages": [{"epochs": 2, "batchSize": 20}]}
                """, dir).orThrow()))
                .runHere();
        AtomicInteger reads = new AtomicInteger();
        MetricsDigests digests = new MetricsDigests(runDir -> {
            reads.incrementAndGet();
            return MetricsDigest.read(runDir);
        });

        List<RunSummary> first = RunLibrary.list(dir.resolve("runs"), digests);
        List<RunSummary> again = RunLibrary.list(dir.resolve("runs"), digests);

        assertThat(reads).hasValue(1);
        assertThat(again).isEqualTo(first);
        assertThat(first).singleElement().satisfies(s -> {
            assertThat(s.status()).isEqualTo("finished");
            assertThat(s.steps()).isEqualTo(run.steps());
            assertThat(s.last()).isEqualTo(run.lastMetrics().get("val/loss"));
            assertThat(s.best()).isLessThanOrEqualTo(s.last());
        });
        assertThat(digests.of(run.runDir())).isEqualTo(MetricsDigest.read(run.runDir()));

        // the run goes on (a resume appends): the next listing reads it again and sees the new value
        Path metrics = run.runDir().resolve("metrics.jsonl");
        String lastLoss = Files.readAllLines(metrics).stream()
                .filter(l -> l.contains("\"val/loss\""))
                .reduce((a, b) -> b)
                .orElseThrow();
        Files.writeString(
                metrics,
                lastLoss.replaceFirst("\"value\":[^,}]+", "\"value\":0.001") + "\n",
                StandardOpenOption.APPEND);
        RunSummary grown = RunLibrary.list(dir.resolve("runs"), digests).get(0);

        assertThat(reads).hasValue(2);
        assertThat(grown.last()).isEqualTo(0.001);
        assertThat(grown.best()).isEqualTo(0.001);
    }
}
