package org.traindeck.engine.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.SampleHistory;
import org.traindeck.engine.events.SamplesEvent;

class SamplesFileSinkTest {

    @Test
    void aLongRunKeepsItsLastIntervalsAndAThinnedHistory(@TempDir Path run) throws IOException {
        SamplesFileSink sink = new SamplesFileSink(run, -1);
        for (int i = 0; i < 500; i++) {
            sink.onEvent(event(i, 10L * (i + 1)));
        }
        sink.onClose();

        List<Long> steps = steps(run);
        assertThat(steps.size()).isLessThanOrEqualTo(SampleHistory.RECENT + SampleHistory.OLDER);
        // the last intervals whole, the first kept, the rest spread evenly
        assertThat(steps)
                .startsWith(10L)
                .endsWith(IntStream.range(500 - SampleHistory.RECENT, 500)
                        .mapToObj(i -> 10L * (i + 1))
                        .toArray(Long[]::new));
        try (Stream<Path> folders = Files.list(run.resolve(SamplesFileSink.FOLDER))) {
            assertThat(folders.filter(Files::isDirectory).count()).isEqualTo(steps.size());
        }
    }

    @Test
    void aResumedRunContinuesTheIndexFromItsStep(@TempDir Path run) throws IOException {
        SamplesFileSink first = new SamplesFileSink(run, -1);
        for (int i = 0; i < 4; i++) {
            first.onEvent(event(i, 10L * (i + 1)));
        }
        first.onClose();

        SamplesFileSink resumed = new SamplesFileSink(run, 20);
        resumed.onEvent(event(0, 30));
        resumed.onEvent(new LifecycleEvent("r", "main", 0, 0, 25, 0, 0, LifecycleEvent.Kind.REWIND, "rewind"));
        resumed.onClose();

        assertThat(steps(run)).containsExactly(10L, 20L);
        assertThat(Files.exists(run.resolve("samples/000004/3-input.png"))).isFalse();
        assertThat(Files.exists(run.resolve("samples/000001/3-input.png"))).isTrue();
    }

    @Test
    void theHistoryNeverTakesBackAnIntervalItDropped() {
        for (int count = 1; count < 300; count++) {
            for (int ordinal = 0; ordinal < count; ordinal++) {
                if (!SampleHistory.keeps(ordinal, count)) {
                    assertThat(SampleHistory.keeps(ordinal, count + 1))
                            .as("interval %d of %d", ordinal, count)
                            .isFalse();
                }
            }
            int c = count;
            assertThat(IntStream.range(0, count)
                            .filter(o -> SampleHistory.keeps(o, c))
                            .count())
                    .isLessThanOrEqualTo(SampleHistory.RECENT + SampleHistory.OLDER);
        }
    }

    private static SamplesEvent event(int interval, long step) {
        SamplesEvent.Sample s = new SamplesEvent.Sample(
                3,
                "1",
                "1",
                List.of(new SamplesEvent.Score("1", 1.0)),
                null,
                null,
                List.of(new SamplesEvent.Picture("input", 1, 1, 1, new byte[] {(byte) 0x89, 'P', 'N', 'G'})));
        return new SamplesEvent(
                "r",
                "main",
                0,
                interval,
                step,
                1_700_000_000_000L + step,
                step,
                "classification",
                interval,
                List.of(s));
    }

    private static List<Long> steps(Path run) throws IOException {
        ObjectMapper json = new ObjectMapper();
        List<Long> steps = new ArrayList<>();
        for (String line :
                Files.readAllLines(run.resolve(SamplesFileSink.FOLDER).resolve(SamplesFileSink.INDEX))) {
            steps.add(json.readTree(line).get("step").asLong());
        }
        return steps;
    }
}
