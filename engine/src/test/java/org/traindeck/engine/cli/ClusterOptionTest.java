package org.traindeck.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** train --cluster/--executors through the CLI, on the engine tests' in-process backend; bad addresses are input errors. */
class ClusterOptionTest {

    private static MainAccess.Result run(String[] args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new Main(
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(args);
        return new MainAccess.Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static Path config(Path dir, String parallel) throws IOException {
        Path config = dir.resolve("c.json");
        Files.writeString(config, """
                {"name": "cli", "model": {"type": "mlp", "hidden": [8]}, "parallel": %s,
                 "data": {"train": {"type": "synthetic", "samples": 200, "features": 4, "numClasses": 2}, "validationSplit": 0.25},
                 "stages": [{"name": "only", "epochs": 1, "batchSize": 25}]}
                """.formatted(parallel));
        return config;
    }

    @Test
    void trainOnAClusterGivenOnTheCommandLine(@TempDir Path dir) throws IOException {
        MainAccess.Result r = run(new String[] {
            "train", config(dir, "{}").toString(), "--cluster", "inprocess://localhost:1", "--executors", "2"
        });
        assertThat(r.exitCode()).as(r.stderr()).isEqualTo(Main.OK);
        assertThat(r.stdout()).contains("global batch 50 on 2 executors of inprocess://localhost:1");
    }

    @Test
    void aClusterThatIsNoAddressIsInvalidInput(@TempDir Path dir) throws IOException {
        MainAccess.Result r = run(new String[] {"train", config(dir, "{}").toString(), "--cluster", "localhost"});
        assertThat(r.exitCode()).isEqualTo(Main.INVALID_INPUT);
        assertThat(r.stderr())
                .contains("parallel.cluster")
                .contains("--cluster localhost")
                .doesNotContain("\tat ");
    }

    @Test
    void aClusterTrainsSynchronouslyOnly(@TempDir Path dir) throws IOException {
        MainAccess.Result r = run(new String[] {
            "validate",
            config(dir, "{\"mode\": \"averaging\", \"cluster\": \"spark://h:7077\"}")
                    .toString()
        });
        assertThat(r.exitCode()).isEqualTo(Main.INVALID_INPUT);
        assertThat(r.stderr() + r.stdout()).contains("parallel.mode").contains("trains synchronously only");
    }
}
