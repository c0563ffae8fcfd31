package org.traindeck.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.library.tfevents.EventFixtures;
import org.traindeck.engine.train.RunRequest;
import org.traindeck.engine.train.TrainingRun;

/** {@code traindeck compare} of a real TrainDeck run with TensorBoard logs laid out as PyTorch's SummaryWriter writes them. */
class CompareWithTensorBoardTest {

    @TempDir
    static Path dir;

    private static Path run;
    private static Path logs;

    @BeforeAll
    static void aTrainDeckRunAndAPyTorchOne() throws Exception {
        RunResult r = TrainingRun.open(
                        RunRequest.of(ConfigParser.parse("""
                        {"name": "ours", "outputDir": "runs", "seed": 2, "model": {"type": "mlp", "hidden": [8]},
                         "data": {"train": {"type": "synthetic", "samples": 300, "features": 4, "numClasses": 3},
                                  "validationSplit": 0.2},
                         "stages": [{"epochs": 2, "batchSize": 20, "optimizer": {"type": "adam", "learningRate": 0.01}}]}
                        """, dir).orThrow()))
                .runHere();
        assertThat(r.status()).isEqualTo(RunResult.Status.FINISHED);
        run = r.runDir();
        EventFixtures f = new EventFixtures().fileVersion(1_764_378_000.0);
        for (int step = 1; step <= 24; step++) {
            f.simpleValue(1_764_378_000.0 + step, step, "Loss/train", 1.5f - step * 0.02f);
            if (step % 12 == 0) {
                f.simpleValue(1_764_378_000.0 + step, step, "my_acc", 0.5f + step / 100f);
            }
        }
        logs = dir.resolve("pytorch/Nov29_01-00-00_host");
        f.writeTo(logs, EventFixtures.fileName(1_764_378_000L, ""));
    }

    @Test
    void aTrainDeckRunIsComparedWithPyTorchLogsThroughTheTagMapping() {
        MainAccess.Result r =
                MainAccess.run("compare", run.toString(), logs.toString(), "--map", "my_acc=val/accuracy");

        assertThat(r.stderr()).isEmpty();
        assertThat(r.exitCode()).isZero();
        assertThat(r.stdout())
                .contains("Nov29_01-00-00_host: TensorBoard logs, 1 file(s), tags Loss/train, my_acc; read as"
                        + " Loss/train=train/loss, my_acc=val/accuracy")
                .contains(run.getFileName().toString())
                .contains("fewer than two TrainDeck runs");
        String trainLoss = r.stdout()
                .lines()
                .filter(l -> l.startsWith("train/loss "))
                .findFirst()
                .orElseThrow();
        // the logs' final and best: step 24's loss, 1.5 - 0.48
        assertThat(trainLoss).endsWith("1.020 / 1.020");
        String accuracy = r.stdout()
                .lines()
                .filter(l -> l.startsWith("val/accuracy "))
                .findFirst()
                .orElseThrow();
        assertThat(accuracy).endsWith("0.7400 / 0.7400");
    }

    @Test
    void damagedLogsAndFoldersThatAreNeitherAreRefusedWithTheirPlace() throws Exception {
        Path damaged = dir.resolve("damaged");
        EventFixtures f = new EventFixtures().fileVersion(1.0).simpleValue(2.0, 1, "loss", 1f);
        byte[] bytes = f.bytes();
        bytes[bytes.length - 6] ^= 1;
        Files.createDirectories(damaged);
        Files.write(damaged.resolve(EventFixtures.fileName(1L, "")), bytes);

        MainAccess.Result r = MainAccess.run("compare", run.toString(), damaged.toString());
        assertThat(r.exitCode()).isEqualTo(Main.INVALID_INPUT);
        assertThat(r.stderr())
                .contains("error: ")
                .contains("byte " + f.recordOffsets.get(1) + ":")
                .contains("checksum")
                .doesNotContain("\tat ");

        Path neither = Files.createDirectories(dir.resolve("neither"));
        MainAccess.Result n = MainAccess.run("compare", run.toString(), neither.toString());
        assertThat(n.exitCode()).isEqualTo(Main.INVALID_INPUT);
        assertThat(n.stderr()).contains("is not a run folder").contains("nor TensorBoard logs");

        MainAccess.Result map = MainAccess.run("compare", run.toString(), logs.toString(), "--map", "loss");
        assertThat(map.exitCode()).isEqualTo(Main.INVALID_INPUT);
        assertThat(map.stderr()).contains("--map: \"loss\" is not a tag mapping");
    }
}
