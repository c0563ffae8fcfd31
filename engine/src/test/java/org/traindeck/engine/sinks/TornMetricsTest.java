package org.traindeck.engine.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.events.EngineEvent;

/** A metrics.jsonl cut by a crash in the middle of a multi-byte character, then trimmed for a resume and read back. */
class TornMetricsTest {

    @Test
    void aLastLineCutInsideACharacterIsDroppedAndTheTrimmedLinesAreKeptAside(@TempDir Path run) throws Exception {
        String lines = """
                {"step":1,"name":"train/loss","value":1.0}
                {"step":2,"name":"train/loss","value":0.9}
                {"step":3,"event":"WARNING","message":"épreuve"}
                {"step":3,"event":"WARNING","message":"après l'époque…"}
                """;
        byte[] bytes = lines.getBytes(StandardCharsets.UTF_8);
        // cut inside the three bytes of the last "…"
        Files.write(run.resolve("metrics.jsonl"), Arrays.copyOf(bytes, bytes.length - 4));

        List<EngineEvent> read = new ArrayList<>();
        MetricsJsonlReader.forEach(run, read::add);
        assertThat(read).hasSize(3);
        int dropped = MetricFiles.truncateAfter(run, 2);

        assertThat(dropped).isEqualTo(1);
        assertThat(Files.readAllLines(run.resolve("metrics.jsonl"))).hasSize(2);
        assertThat(Files.readString(run.resolve("metrics.jsonl.after-step-2"))).contains("épreuve");
    }
}
