package org.traindeck.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process whose ND4J natives cannot load (here JavaCPP told to look for another platform's, as a build for the
 * wrong machine or a CUDA build without its driver would fail) says so and what to do, exit 2, no stack trace.
 */
class NativeBackendProcessTest {

    @Test
    void aBackendThatCannotLoadIsAnErrorNotACrash(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("small.json");
        Files.writeString(config, """
                {"name": "small", "outputDir": "runs", "model": {"type": "mlp", "hidden": [4]},
                 "data": {"train": {"type": "synthetic", "samples": 64, "features": 4}},
                 "stages": [{"epochs": 1, "batchSize": 16}]}
                """);

        Process p = CliProcess.start(
                dir, "child.log", List.of("-Dorg.bytedeco.javacpp.platform=linux-arm64"), "train", config.toString());
        try {
            assertThat(p.waitFor(180, TimeUnit.SECONDS)).as("the child ends").isTrue();
        } finally {
            p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }

        String output = Files.readString(dir.resolve("child.log"));
        assertThat(p.exitValue()).as(output).isEqualTo(Main.INVALID_INPUT);
        assertThat(output)
                .contains("error: ND4J's CPU backend cannot load its native libraries: ")
                .contains("org.bytedeco.javacpp.platform")
                .doesNotContain("Exception in thread")
                .doesNotContain("\tat ");
    }
}
