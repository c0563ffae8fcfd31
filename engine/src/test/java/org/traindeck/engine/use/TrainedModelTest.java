package org.traindeck.engine.use;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.checkpoint.CheckpointException;
import org.traindeck.engine.checkpoint.CheckpointFiles;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.train.RunRequest;
import org.traindeck.engine.train.TrainingRun;

/** Opening a trained model from a real short run: which checkpoint, which weights, and every refusal with its reason. */
class TrainedModelTest {

    @TempDir
    static Path dir;

    private static RunResult withEma;
    private static RunResult withoutEma;

    static RunConfig digits(Path dir, String name, String ema) {
        String digits = TestPaths.repoRoot()
                .resolve("data/digits/digits.csv.gz")
                .toString()
                .replace("\\", "/");
        return ConfigParser.parse("""
                {"name": "%s", "outputDir": "out", "seed": 7,
                 "model": {"type": "mlp", "hidden": [16], "dropout": 0.2},
                 "data": {"train": {"type": "csv", "path": "%s", "numClasses": 10, "limit": 600}, "validationSplit": 0.2},
                 "stages": [{"epochs": 2, "batchSize": 64, "optimizer": {"type": "adam", "learningRate": 0.01}, "ema": %s}],
                 "checkpoint": {"monitor": "val/accuracy", "mode": "max"}}
                """.formatted(name, digits, ema), dir).orThrow();
    }

    @BeforeAll
    static void train() throws Exception {
        withEma = TrainingRun.open(RunRequest.of(digits(dir, "with-ema", "{\"decay\": 0.5}")))
                .runHere();
        withoutEma =
                TrainingRun.open(RunRequest.of(digits(dir, "plain", "null"))).runHere();
        assertThat(withEma.status()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(withoutEma.status()).isEqualTo(RunResult.Status.FINISHED);
    }

    @Test
    void aRunFolderOpensAtItsBestCheckpointWithItsWeights() throws Exception {
        TrainedModel m = TrainedModel.open(withEma.runDir(), false);

        assertThat(m.checkpointFile().getFileName().toString()).isEqualTo("best-stage1.tdckpt");
        assertThat(m.runDir()).isEqualTo(withEma.runDir().toAbsolutePath().normalize());
        assertThat(m.task()).isEqualTo(Task.CLASSIFICATION);
        assertThat(m.numClasses()).isEqualTo(10);
        assertThat(m.inputShapes()).hasSize(1);
        assertThat(m.inputShapes().get(0)).containsExactly(-1, 64);
        assertThat(m.config().name()).isEqualTo("with-ema");
        assertThat(m.network().params().toFloatVector())
                .containsExactly(CheckpointFiles.read(m.checkpointFile()).params());

        INDArray probabilities = m.output(Nd4j.rand(5, 64))[0];
        assertThat(probabilities.shape()).containsExactly(5, 10);
        for (int i = 0; i < 5; i++) {
            assertThat(probabilities.getRow(i).sumNumber().doubleValue()).isCloseTo(1.0, within(1e-4));
        }
        // inference mode: dropout is off, so the same input gives the same output
        INDArray x = Nd4j.rand(3, 64);
        assertThat(m.output(x)[0]).isEqualTo(m.output(x)[0]);
    }

    @Test
    void emaLoadsTheWeightAverage() throws Exception {
        TrainedModel m = TrainedModel.open(withEma.lastCheckpoint(), true);

        assertThat(m.usesEma()).isTrue();
        float[] ema = CheckpointFiles.read(withEma.lastCheckpoint()).ema();
        assertThat(m.network().params().toFloatVector()).containsExactly(ema);
        assertThat(ema)
                .isNotEqualTo(CheckpointFiles.read(withEma.lastCheckpoint()).params());
        assertThat(m.card().ema()).isTrue();
        assertThat(m.card().hasEma()).isTrue();
    }

    @Test
    void withoutABestTheNewestRegularCheckpointIsUsed() throws Exception {
        Path copy = dir.resolve("copy");
        Files.createDirectories(copy.resolve("checkpoints"));
        Files.copy(withoutEma.runDir().resolve("config.json"), copy.resolve("config.json"));
        List<Path> regular;
        try (var files = Files.list(withoutEma.runDir().resolve("checkpoints"))) {
            regular = files.filter(p -> p.getFileName().toString().startsWith("step-"))
                    .sorted()
                    .toList();
        }
        for (Path p : regular) {
            Files.copy(p, copy.resolve("checkpoints").resolve(p.getFileName()));
        }

        TrainedModel m = TrainedModel.open(copy.resolve("checkpoints"), false);

        assertThat(m.checkpointFile().getFileName())
                .isEqualTo(regular.get(regular.size() - 1).getFileName());
    }

    @Test
    void aModelOpensWhereItsTrainingDataIsNoLonger() throws Exception {
        Path data = Files.createDirectories(dir.resolve("moved")).resolve("digits.csv.gz");
        Files.copy(TestPaths.repoRoot().resolve("data/digits/digits.csv.gz"), data);
        RunConfig config = ConfigParser.parse(
                        Files.readString(withoutEma.runDir().resolve("config.json"))
                                .replace(
                                        TestPaths.repoRoot()
                                                .resolve("data/digits/digits.csv.gz")
                                                .toString()
                                                .replace("\\", "/"),
                                        data.toString().replace("\\", "/"))
                                .replace("\"plain\"", "\"moved\""),
                        dir)
                .orThrow();
        RunResult r = TrainingRun.open(RunRequest.of(config)).runHere();
        Files.delete(data);

        TrainedModel m = TrainedModel.open(r.runDir(), false);

        assertThat(m.config().name()).isEqualTo("moved");
        assertThat(m.output(Nd4j.rand(2, 64))[0].shape()).containsExactly(2, 10);
    }

    @Test
    void emaOnARunWithoutOneIsRefusedSayingSo() {
        assertThatThrownBy(() -> TrainedModel.open(withoutEma.runDir(), true))
                .isInstanceOf(CheckpointException.class)
                .hasMessageContaining("--ema")
                .hasMessageContaining("holds no weight average")
                .hasMessageContaining("best-stage1.tdckpt");
    }

    @Test
    void aFolderWithoutCheckpointsIsRefused() throws Exception {
        Path empty = Files.createDirectories(dir.resolve("empty-run"));
        assertThatThrownBy(() -> TrainedModel.open(empty, false))
                .isInstanceOf(CheckpointException.class)
                .hasMessageContaining("has no checkpoints");
        assertThatThrownBy(() -> TrainedModel.open(dir.resolve("nowhere"), false))
                .isInstanceOf(CheckpointException.class)
                .hasMessageContaining("no such run folder or checkpoint file");
    }

    @Test
    void aFileThatIsNoCheckpointIsRefused() throws Exception {
        Path text = Files.writeString(dir.resolve("notes.tdckpt"), "not a zip");
        assertThatThrownBy(() -> TrainedModel.open(text, false))
                .isInstanceOf(CheckpointException.class)
                .hasMessageContaining("notes.tdckpt")
                .hasMessageContaining("not a TrainDeck checkpoint");
    }

    @Test
    void aDamagedCheckpointIsRefused() throws Exception {
        byte[] bytes = Files.readAllBytes(withoutEma.lastCheckpoint());
        Path damaged = dir.resolve("damaged.tdckpt");
        Files.write(damaged, Arrays.copyOf(bytes, bytes.length / 2));
        assertThatThrownBy(() -> TrainedModel.open(damaged, false))
                .isInstanceOf(CheckpointException.class)
                .hasMessageContaining("damaged.tdckpt");
    }

    @Test
    void theFingerprintsShapeReadsBackAsTrainingWroteIt() throws Exception {
        Path file = dir.resolve("x.tdckpt");
        for (String shape : List.of(
                "Shape[featureCount=784, image=28×28×1, outputs=10, task=CLASSIFICATION]",
                "Shape[featureCount=4096, image=null, outputs=1, task=RECONSTRUCTION][shape=16×16×16×1, targets=0]",
                "Shape[featureCount=64, image=null, outputs=3, task=SEQUENCE][shape=64 tokens, targets=64]|vocabulary=a\u0000|\u0000c",
                "Shape[featureCount=13, image=null, outputs=1, task=REGRESSION]")) {
            assertThat(StoredShape.parse(file, "{\"type\":\"mlp\"}|" + shape).describe())
                    .isEqualTo(shape);
        }
        assertThat(StoredShape.parse(
                                file,
                                "{}|Shape[featureCount=64, image=null, outputs=3, task=SEQUENCE][shape=64 tokens, targets=64]"
                                        + "|vocabulary=a\u0000|\u0000c")
                        .tokens())
                .containsExactly("a", "|", "c");
        assertThatThrownBy(() -> StoredShape.parse(file, "fp"))
                .isInstanceOf(CheckpointException.class)
                .hasMessageContaining("another TrainDeck version");
    }
}
