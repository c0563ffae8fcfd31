package org.traindeck.engine.library;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code traindeck runs} reads a metrics.jsonl of a few hundred MB in a JVM of 64 MB of heap: the file is streamed and
 * digested, never held. (It used to take ~15× the file's size and end in OutOfMemoryError.)
 */
class LargeMetricsProcessTest {

    /** Lines of train/loss, a val/loss every 1,000 steps: about 300 MB. */
    private static final int STEPS = 2_300_000;

    @Test
    void aRunWithAFewHundredMegabytesOfMetricsIsListedIn64MegabytesOfHeap(@TempDir Path dir) throws Exception {
        Path run = dir.resolve("runs/big");
        Files.createDirectories(run);
        Files.writeString(
                run.resolve("config.json"), "{\"name\": \"big\", \"checkpoint\": {\"monitor\": \"val/loss\"}}");
        try (BufferedWriter w = Files.newBufferedWriter(run.resolve("metrics.jsonl"), StandardCharsets.UTF_8)) {
            w.write(line(0, "\"event\":\"RUN_STARTED\",\"message\":\"\""));
            for (int step = 1; step <= STEPS; step++) {
                w.write(line(step, String.format(Locale.ROOT, "\"name\":\"train/loss\",\"value\":%.9f", 1.0 / step)));
                if (step % 1000 == 0) {
                    // lowest at step 1,000,000, then a little higher
                    double val = step == 1_000_000 ? 0.0125 : 0.5 + Math.abs(step - 1_000_000) * 1e-7;
                    w.write(line(step, String.format(Locale.ROOT, "\"name\":\"val/loss\",\"value\":%.6f", val)));
                }
            }
            w.write(line(STEPS, "\"event\":\"RUN_FINISHED\",\"message\":\"done\""));
        }
        assertThat(Files.size(run.resolve("metrics.jsonl"))).isGreaterThan(250_000_000L);

        List<String> command = List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx64m",
                "-cp",
                System.getProperty("java.class.path"),
                "org.traindeck.engine.cli.Main",
                "runs",
                dir.resolve("runs").toString(),
                "--json");
        Path output = dir.resolve("child.out");
        Process child = new ProcessBuilder(command)
                .redirectError(dir.resolve("child.err").toFile())
                .redirectOutput(output.toFile())
                .start();
        // a guard against a hang, not a speed target (that is the bench's "runs, 1 GB metrics.jsonl" row)
        assertThat(child.waitFor(10, TimeUnit.MINUTES)).isTrue();

        assertThat(child.exitValue())
                .as(Files.readString(dir.resolve("child.err")))
                .isZero();
        JsonNode listed = new ObjectMapper().readTree(output.toFile());
        assertThat(listed).hasSize(1);
        JsonNode big = listed.get(0);
        assertThat(big.get("status").asText()).isEqualTo("finished");
        assertThat(big.get("steps").asLong()).isEqualTo(STEPS);
        assertThat(big.get("best").asDouble()).isEqualTo(0.0125);
        assertThat(big.get("last").asDouble())
                .isEqualTo(0.5 + (STEPS - 1_000_000) * 1e-7, org.assertj.core.data.Offset.offset(1e-6));
        assertThat(big.get("durationSeconds").asDouble()).isEqualTo(STEPS / 1000.0);
    }

    private static String line(long step, String rest) {
        return String.format(
                Locale.ROOT,
                "{\"time\":%d.000,\"elapsed\":%d.%03d,\"stage\":\"main\",\"stageIndex\":0,\"epoch\":%d,\"step\":%d,%s}%n",
                1_700_000_000L + step / 1000,
                step / 1000,
                step % 1000,
                step / 10_000,
                step,
                rest);
    }
}
