package org.traindeck.engine.library;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.api.PastRun;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.MetricEvent;

/** A past run's history is reduced as the live charts reduce a series: bounded, and every spike survives. */
class HistoryReductionTest {

    private static MetricEvent loss(long step, double value) {
        return new MetricEvent("r", "main", 0, 0, step, step, step, "train/loss", value, null);
    }

    @Test
    void aSingleSpikeAndASingleDipAmongMillionsOfPointsSurvive() {
        HistoryReduction reduction = new HistoryReduction();
        reduction.add(new LifecycleEvent("r", "main", 0, 0, 0, 0, 0, LifecycleEvent.Kind.RUN_STARTED, ""));
        for (long step = 1; step <= 5_000_000; step++) {
            double value = step == 3_141_593 ? 1e6 : step == 4_242_424 ? -1e6 : 1.0 + (step % 7) * 0.01;
            reduction.add(loss(step, value));
            if (step % 1_000_000 == 0) {
                reduction.add(new MetricEvent("r", "main", 0, 0, step, step, step, "val/loss", 0.5, null));
            }
        }
        reduction.add(new LifecycleEvent("r", "main", 0, 0, 5_000_000, 0, 0, LifecycleEvent.Kind.RUN_FINISHED, ""));

        List<EngineEvent> events = reduction.events();

        List<MetricEvent> losses = events.stream()
                .filter(e -> e instanceof MetricEvent m && m.name().equals("train/loss"))
                .map(e -> (MetricEvent) e)
                .toList();
        assertThat(losses).hasSizeLessThanOrEqualTo(2 * HistoryReduction.BUCKETS);
        assertThat(losses)
                .anySatisfy(m -> assertThat(m.step()).isEqualTo(3_141_593L))
                .anySatisfy(m -> assertThat(m.value()).isEqualTo(1e6));
        assertThat(losses).anySatisfy(m -> assertThat(m.value()).isEqualTo(-1e6));
        assertThat(losses).extracting(MetricEvent::step).isSorted();
        // a short series (the five validation points) and the lifecycle are whole, and in the file's order
        assertThat(events)
                .filteredOn(e -> e instanceof MetricEvent m && m.name().equals("val/loss"))
                .hasSize(5);
        assertThat(events.get(0)).isInstanceOf(LifecycleEvent.class);
        assertThat(events.get(events.size() - 1))
                .isInstanceOfSatisfying(
                        LifecycleEvent.class, l -> assertThat(l.kind()).isEqualTo(LifecycleEvent.Kind.RUN_FINISHED));
    }

    @Test
    void aSeriesShorterThanTheBucketsIsKeptWhole() {
        HistoryReduction reduction = new HistoryReduction();
        for (long step = 1; step <= 1000; step++) {
            reduction.add(loss(step, Math.sin(step)));
        }
        assertThat(reduction.events()).hasSize(1000);
    }

    @Test
    void openRunReadsABigFileIntoABoundedHistoryWithItsSpike(@TempDir Path dir) throws Exception {
        Path run = dir.resolve("big");
        Files.createDirectories(run);
        try (BufferedWriter w = Files.newBufferedWriter(run.resolve("metrics.jsonl"), StandardCharsets.UTF_8)) {
            for (int step = 1; step <= 500_000; step++) {
                w.write(String.format(
                        Locale.ROOT,
                        "{\"time\":1.0,\"elapsed\":1.0,\"stage\":\"main\",\"stageIndex\":0,\"epoch\":0,"
                                + "\"step\":%d,\"name\":\"train/loss\",\"value\":%s}%n",
                        step,
                        step == 123_457 ? "99.5" : "0.25"));
            }
        }

        PastRun past = Engine.local().pastRuns().open(run);

        assertThat(past.history())
                .hasSizeLessThanOrEqualTo(2 * HistoryReduction.BUCKETS)
                .anySatisfy(e -> assertThat(((MetricEvent) e).value()).isEqualTo(99.5));
    }
}
