package org.traindeck.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.TestPaths;

/** {@code traindeck evaluate} on a trained run: the table, evaluation.json, and each bad input refused with its reason. */
class EvaluateCommandTest {

    private static final String CONFIG = """
            {"name": "digits", "seed": 4, "model": {"type": "mlp", "hidden": [16]},
             "data": {"train": {"type": "csv", "path": "%s", "numClasses": 10, "limit": 300}, "validationSplit": 0.2},
             "stages": [{"epochs": 1, "batchSize": 32}]}
            """;

    @Test
    void printsTheFiguresTheMatrixAndTheClassesAndWritesThem(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("digits.json");
        Files.writeString(
                config,
                CONFIG.formatted(TestPaths.repoRoot()
                        .resolve("data/digits/digits.csv.gz")
                        .toString()
                        .replace("\\", "/")));
        assertThat(MainAccess.run("train", config.toString()).exitCode()).isEqualTo(Main.OK);
        Path run = dir.resolve("runs/digits");

        MainAccess.Result r = MainAccess.run("evaluate", run.toString());

        assertThat(r.exitCode()).as(r.stderr()).isEqualTo(Main.OK);
        assertThat(r.stdout())
                .contains(
                        "best-stage1.tdckpt of run \"digits\" (weights) on the validation split (0.2), as the config has no data.test: 60 samples")
                .contains("val/loss", "val/accuracy", "val/top5_accuracy")
                .contains("confusion matrix (rows: true class, columns: predicted)")
                .contains("PRECISION", "RECALL", "F1")
                .contains("written to " + run.resolve("evaluation.json"));
        double accuracy = new ObjectMapper()
                .readTree(run.resolve("evaluation.json").toFile())
                .path("figures")
                .path("val/accuracy")
                .asDouble();
        assertThat(r.stdout()).contains(String.format(Locale.ROOT, "%.4f", accuracy));
        // the mode of the run folder's other files (the umask's), not a temporary file's owner-only 0600
        assertThat(Files.getPosixFilePermissions(run.resolve("evaluation.json")))
                .isEqualTo(Files.getPosixFilePermissions(run.resolve("config.json")));

        MainAccess.Result ema = MainAccess.run("evaluate", run.toString(), "--ema");
        assertThat(ema.exitCode()).isEqualTo(Main.INVALID_INPUT);
        assertThat(ema.stderr())
                .contains("--ema")
                .contains("holds no weight average")
                .doesNotContain("\tat ");

        MainAccess.Result missing = MainAccess.run(
                "evaluate", run.toString(), "--data", dir.resolve("nope.json").toString());
        assertThat(missing.exitCode()).isEqualTo(Main.INVALID_INPUT);
        assertThat(missing.stderr()).contains("--data").contains("no such file").contains("nothing was evaluated");
    }

    @Test
    void aFolderWithoutCheckpointsOrAFileThatIsNoneIsRefused(@TempDir Path dir) throws Exception {
        MainAccess.Result empty = MainAccess.run("evaluate", dir.toString());
        assertThat(empty.exitCode()).isEqualTo(Main.INVALID_INPUT);
        assertThat(empty.stderr()).contains("has no checkpoints");

        Path notOne = Files.writeString(dir.resolve("model.tdckpt"), "hello");
        MainAccess.Result foreign = MainAccess.run("evaluate", notOne.toString());
        assertThat(foreign.exitCode()).isEqualTo(Main.INVALID_INPUT);
        assertThat(foreign.stderr())
                .contains("model.tdckpt")
                .contains("not a TrainDeck checkpoint")
                .doesNotContain("\tat ");
        assertThat(dir.resolve("evaluation.json")).doesNotExist();
    }
}
