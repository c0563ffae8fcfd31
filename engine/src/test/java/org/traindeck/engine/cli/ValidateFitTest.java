package org.traindeck.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.api.devices.HostInfo;
import org.traindeck.engine.devices.HostProbe;
import org.traindeck.engine.devices.NvidiaSmi;
import org.traindeck.engine.faults.FaultPlan;

/** {@code traindeck validate --summary} ends with the fit check; a stage that does not fit is refused before anything runs. */
class ValidateFitTest {

    private static final String CONFIG = """
            {"name": "fit", "model": {"type": "graph", "layers": [
              {"name": "c", "type": "conv2d", "filters": 32, "kernel": 3, "activation": "relu"},
              {"name": "fc", "type": "dense", "units": 16, "activation": "relu"}]},
             "data": {"train": {"type": "synthetic", "samples": 16, "imageShape": [64, 64, 3], "numClasses": 4}},
             "stages": [{"epochs": 1, "batchSize": 256}]}
            """;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(long availableMiB, String... args) {
        return new Main(
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8),
                        Engine.using(new NvidiaSmi("", Duration.ofSeconds(1)), host(availableMiB), FaultPlan.NONE))
                .run(args);
    }

    @Test
    void theSummaryEndsWithTheFitLine(@TempDir Path dir) throws IOException {
        Path config = Files.writeString(dir.resolve("fit.json"), CONFIG);

        int code = run(64 * 1024, "validate", "--summary", config.toString());

        assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isEqualTo(Main.OK);
        assertThat(out.toString(StandardCharsets.UTF_8))
                .containsPattern(
                        "training memory per device: \\d+ MB \\(weights [\\d.]+, gradients [\\d.]+, Adam state [\\d.]+, activations at batch 256 ~[\\d.]+\\); cpu: [\\d.]+ GB available \\([^)]+\\): fits");
    }

    @Test
    void aHostWithLittleRamRefusesTheStageWithABatchThatFits(@TempDir Path dir) throws IOException {
        Path config = Files.writeString(dir.resolve("fit.json"), CONFIG);

        int validate = run(128, "validate", config.toString());
        int train = run(128, "train", config.toString());

        assertThat(validate).isEqualTo(Main.INVALID_INPUT);
        assertThat(train).isEqualTo(Main.INVALID_INPUT);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("stages[0].batchSize", "): use batchSize ", "nothing was run")
                .containsPattern("use batchSize (\\d+) with accumulationSteps (\\d+)");
    }

    private static HostProbe host(long availableMiB) {
        return new HostProbe() {
            @Override
            public HostInfo host() {
                return new HostInfo("Test CPU", 2, 2, 65536, availableMiB);
            }

            @Override
            public List<GraphicsCard> graphicsCards() {
                return List.of();
            }

            @Override
            public double cpuLoad() {
                return 0;
            }
        };
    }
}
