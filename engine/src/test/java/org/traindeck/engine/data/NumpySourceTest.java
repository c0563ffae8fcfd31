package org.traindeck.engine.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.cli.MainAccess;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.train.RunRequest;
import org.traindeck.engine.train.TrainingRun;

/**
 * The numpy source on arrays NumPy wrote itself (engine/src/test/resources/numpy-train/make_train_fixtures.py): every
 * dtype, byte order and memory order reads as the same samples, a config pointed at x.npy and y.npy trains, and each
 * bad input is refused at its config key before anything runs.
 */
class NumpySourceTest {

    private static final Path FIXTURES = TestPaths.repoRoot().resolve("engine/src/test/resources/numpy-train");
    private static final Path HOSTILE = TestPaths.repoRoot().resolve("engine/src/test/resources/numpy");

    @TempDir
    Path dir;

    static Stream<String> everyLayout() throws IOException {
        try (Stream<Path> files = Files.list(FIXTURES)) {
            return files
                    .map(p -> p.getFileName().toString())
                    .filter(n -> n.startsWith("x_") && !n.startsWith("x_nan") && !n.startsWith("x_b1"))
                    .sorted()
                    .toList()
                    .stream();
        }
    }

    private RunConfig config(String source) {
        return ConfigParser.parse("""
                {"name": "np", "outputDir": "%s",
                 "model": {"type": "graph", "layers": [{"type": "dense", "units": 16, "activation": "tanh"}]},
                 "data": {"train": %s, "validationSplit": 0.25},
                 "stages": [{"epochs": 60, "batchSize": 16, "optimizer": {"type": "adam", "learningRate": 0.03}}]}
                """.formatted(dir.resolve("runs"), source), FIXTURES)
                .orThrow();
    }

    private static float[][] samples(Dataset d) {
        float[][] out = new float[d.size()][d.featureCount()];
        for (int i = 0; i < d.size(); i++) {
            d.copyFeatures(i, out[i], 0);
        }
        return out;
    }

    @ParameterizedTest
    @MethodSource("everyLayout")
    void everyDtypeByteOrderAndMemoryOrderReadsAsTheSameSamples(String file) {
        RunConfig reference = config("{\"type\": \"numpy\", \"inputs\": \"x_f8_le_C.npy\", \"targets\": \"y.npy\"}");
        RunConfig config = config("{\"type\": \"numpy\", \"inputs\": \"" + file + "\", \"targets\": \"y.npy\"}");
        try (DataLoader.Loaded expected = DataLoader.load(reference, reference.data(), "data");
                DataLoader.Loaded actual = DataLoader.load(config, config.data(), "data")) {
            assertThat(samples(actual.train())).isDeepEqualTo(samples(expected.train()));
            assertThat(actual.train().task()).isEqualTo(Task.CLASSIFICATION);
            assertThat(actual.train().outputCount()).isEqualTo(2);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"x_f2_be_F.npy", "x_u1_le_C.npy", "x_i8_be_C.npy"})
    void aConfigPointedAtXAndYTrains(String x) throws IOException {
        RunConfig config = config("{\"type\": \"numpy\", \"inputs\": \"" + x + "\", \"targets\": \"y.npy\"}");
        var result = TrainingRun.open(RunRequest.of(config)).runHere();
        assertThat(result.status().name()).isEqualTo("FINISHED");
        assertThat(result.lastMetrics().get("val/accuracy")).isGreaterThanOrEqualTo(0.8);
    }

    @Test
    void boolInputsAndAnNpzTrainToo() throws IOException {
        for (String source : new String[] {
            "{\"type\": \"numpy\", \"inputs\": \"x_b1_F.npy\", \"targets\": \"y_b1.npy\"}",
            "{\"type\": \"numpy\", \"inputs\": \"xy.npz:x\", \"targets\": \"xy.npz:y\"}"
        }) {
            var result = TrainingRun.open(RunRequest.of(config(source))).runHere();
            assertThat(result.status().name()).as(source).isEqualTo("FINISHED");
            assertThat(result.lastMetrics().get("val/accuracy")).as(source).isGreaterThanOrEqualTo(0.8);
        }
    }

    private InvalidConfigException refusal(String source) {
        RunConfig config = config(source);
        Throwable t = catchThrowable(
                () -> DataLoader.load(config, config.data(), "data").close());
        assertThat(t).isInstanceOf(InvalidConfigException.class);
        return (InvalidConfigException) t;
    }

    @Test
    void inputsAndTargetsOfDifferentLengthsAreRefused() {
        InvalidConfigException e =
                refusal("{\"type\": \"numpy\", \"inputs\": \"x_f4_le_C.npy\", \"targets\": \"y_short.npy\"}");
        assertThat(e.problems().get(0).path()).isEqualTo("data.train.targets");
        assertThat(e.getMessage()).contains("holds 63 samples").contains("hold 64");
    }

    @Test
    void aNanNamesItsFirstIndex() {
        InvalidConfigException e = refusal("{\"type\": \"numpy\", \"inputs\": \"x_nan.npy\", \"targets\": \"y.npy\"}");
        assertThat(e.problems().get(0).path()).isEqualTo("data.train.inputs");
        assertThat(e.getMessage()).contains("NaN at sample 17, index [17, 1]");
    }

    @Test
    void aMaskIdBeyondTheClassesIsRefused() {
        InvalidConfigException e =
                refusal("{\"type\": \"numpy\", \"task\": \"segmentation\", \"inputs\": \"images.npy\","
                        + " \"targets\": \"masks_bad.npy\", \"numClasses\": 3}");
        assertThat(e.problems().get(0).path()).isEqualTo("data.train.targets");
        assertThat(e.getMessage()).contains("class id 7 at sample 3, index [3, 4, 5], outside 0..2");
    }

    @Test
    void hostileFilesAreRefusedWithoutReadingTheirPayload() {
        assertThat(refusal("{\"type\": \"numpy\", \"inputs\": \"" + HOSTILE.resolve("claims_more.npy")
                                + "\", \"targets\": \"y.npy\"}")
                        .getMessage())
                .contains("claims_more.npy");
        assertThat(refusal("{\"type\": \"numpy\", \"inputs\": \"" + HOSTILE.resolve("object.npy")
                                + "\", \"targets\": \"y.npy\"}")
                        .getMessage())
                .contains("pickle");
        assertThat(refusal("{\"type\": \"numpy\", \"inputs\": \"" + HOSTILE.resolve("bomb_declared.npz")
                                + ":x\", \"targets\": \"y.npy\"}")
                        .getMessage())
                .contains("bomb_declared.npz");
    }

    @Test
    void aValidateRefusesBadDataWithExitTwoAndWritesNothing() throws IOException {
        Path config = dir.resolve("c.json");
        Files.writeString(config, """
                {"name": "np", "outputDir": "runs", "model": {"type": "graph", "layers": [{"type": "dense", "units": 4}]},
                 "data": {"train": {"type": "numpy", "inputs": "%s", "targets": "%s"}}, "stages": [{"epochs": 1}]}
                """.formatted(FIXTURES.resolve("x_nan.npy"), FIXTURES.resolve("y.npy")));
        MainAccess.Result validate = MainAccess.run("validate", config.toString());
        MainAccess.Result train = MainAccess.run("train", config.toString());

        assertThat(validate.exitCode()).isEqualTo(2);
        assertThat(train.exitCode()).isEqualTo(2);
        assertThat(validate.stderr())
                .contains("data.train.inputs")
                .contains("NaN at sample 17")
                .doesNotContain("\tat ");
        assertThat(dir.resolve("runs")).doesNotExist();
    }

    @Test
    void aTextThatIsNotUtf8NamesTheByteOffset() throws IOException {
        Files.write(dir.resolve("t.txt"), new byte[] {'h', 'e', 'l', 'l', 'o', (byte) 0xe9, 'x'});
        assertThatThrownBy(() -> TextReader.read(dir.resolve("t.txt"), 2, 2, 0, null))
                .hasMessageContaining("not UTF-8")
                .hasMessageContaining("byte offset 5");
    }
}
