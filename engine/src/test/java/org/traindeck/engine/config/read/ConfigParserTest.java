package org.traindeck.engine.config.read;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.config.CheckpointPolicy;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.CsvSource;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.LayerHealthConfig;
import org.traindeck.engine.config.LoggingConfig;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.ScheduleConfig;
import org.traindeck.engine.config.StageConfig;
import org.traindeck.engine.config.ValidationResult;

class ConfigParserTest {

    static Stream<Arguments> badConfigs() throws IOException {
        return Files.readAllLines(TestPaths.badConfigs().resolveSibling("bad-configs.csv")).stream()
                .filter(l -> !l.isBlank() && !l.startsWith("#"))
                .map(l -> l.split("\\|", -1))
                .map(f -> Arguments.of(f[0], f[1], f[2], Integer.parseInt(f[3]), Integer.parseInt(f[4])));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badConfigs")
    void eachBadConfigGetsItsOwnLocatedMessage(String file, String path, String text, int line, int column) {
        ValidationResult result = ConfigParser.load(TestPaths.badConfigs().resolve(file));

        assertThat(result.isValid()).isFalse();
        assertThat(result.config()).isNull();
        ConfigProblem first = result.errors().get(0);
        assertThat(first.path()).isEqualTo(path);
        assertThat(first.message()).contains(text);
        assertThat(first.line()).isEqualTo(line);
        assertThat(first.column()).isEqualTo(column);
        if (line > 0) {
            assertThat(first.toString()).endsWith("(line " + line + ", column " + column + ")");
        }
    }

    @Test
    void reportsEveryErrorInOnePass() {
        ValidationResult result = ConfigParser.load(TestPaths.badConfigs().resolve("many-errors.json"));

        assertThat(result.errors())
                .extracting(ConfigProblem::path)
                .containsExactlyInAnyOrder(
                        "name",
                        "seed",
                        "model.type",
                        "data.train.samples",
                        "data.validationSplit",
                        "stages[0].epochs",
                        "stages[0].batchSize",
                        "stages[1].optimizer.learningRate",
                        "logging.jsonl");
        assertThat(result.errors()).allSatisfy(p -> assertThat(p.line()).isPositive());
    }

    @Test
    void errorMessageHasTheDocumentedForm() {
        ValidationResult result = ConfigParser.load(TestPaths.badConfigs().resolve("out-of-range.json"));

        assertThat(result.errors().get(0).toString())
                .isEqualTo("stages[1].epochs: must be between 1 and 1000000 (line 7, column 17)");
    }

    @Test
    void aMissingConfigFileIsAnError() {
        ValidationResult result = ConfigParser.load(Path.of("/nonexistent/config.json"));

        assertThat(result.errors())
                .singleElement()
                .satisfies(p -> assertThat(p.message()).contains("no such file"));
    }

    /** Issue 35: Windows editors (Notepad among them) start a UTF-8 file with a byte-order mark. */
    @Test
    void aConfigThatStartsWithAByteOrderMarkIsRead(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("bom.json");
        Files.writeString(
                file,
                "\uFEFF{\"name\": \"bom\", \"model\": {\"type\": \"mlp\", \"hidden\": [4]},\n"
                        + " \"data\": {\"train\": {\"type\": \"synthetic\", \"samples\": 16, \"features\": 4, \"numClasses\": 2}},\n"
                        + " \"stages\": [{\"epochs\": 1, \"batchSize\": 4}]}\n");
        assertThat(Files.readAllBytes(file)).startsWith(0xEF, 0xBB, 0xBF);

        ValidationResult result = ConfigParser.load(file);

        assertThat(result.errors()).isEmpty();
        assertThat(result.config().name()).isEqualTo("bom");
    }

    @Test
    void defaultsAreFilledIn(@TempDir Path dir) {
        RunConfig config = ConfigParser.parse("""
                {"name": "tiny", "model": {"type": "mlp"}, "data": {"train": {"type": "synthetic"}}, "stages": [{"epochs": 2}]}
                """, dir).orThrow();

        assertThat(config.outputDir()).isEqualTo("runs");
        assertThat(config.devices()).isEqualTo(DeviceSelection.CPU);
        StageConfig stage = config.stages().get(0);
        assertThat(stage.name()).isEqualTo("stage1");
        assertThat(stage.batchSize()).isEqualTo(32);
        assertThat(stage.optimizer().type()).isEqualTo("adam");
        assertThat(stage.schedule()).isEqualTo(new ScheduleConfig.Constant());
        assertThat(stage.accumulationSteps()).isEqualTo(1);
        assertThat(stage.precision()).isEqualTo(StageConfig.Precision.FLOAT32);
        assertThat(config.logging()).isEqualTo(new LoggingConfig(true, true, true, 1, LayerHealthConfig.DEFAULTS));
        assertThat(config.outputPath()).isEqualTo(dir.toAbsolutePath().resolve("runs"));
    }

    @Test
    void relativeDataPathsResolveAgainstTheConfigFolder(@TempDir Path dir) throws IOException {
        Path sub = Files.createDirectories(dir.resolve("configs"));
        Files.writeString(dir.resolve("data.csv"), "1,2,0\n3,4,1\n");
        Path file = sub.resolve("c.json");
        Files.writeString(file, """
                {"name": "rel", "model": {"type": "mlp"},
                 "data": {"train": {"type": "csv", "path": "../data.csv"}}, "stages": [{"epochs": 1}]}
                """);

        RunConfig config = ConfigParser.load(file).orThrow();

        assertThat(config.resolve(((CsvSource) config.data().train()).path()))
                .isEqualTo(dir.resolve("data.csv").toAbsolutePath());
    }

    @Test
    void devicesAcceptCpuAllAndIndexLists(@TempDir Path dir) {
        String template = """
                {"name": "d", "devices": %s, "model": {"type": "mlp"}, "data": {"train": {"type": "synthetic"}}, "stages": [{"epochs": 1}]}
                """;
        assertThat(ConfigParser.parse(template.formatted("\"all\""), dir)
                        .orThrow()
                        .devices())
                .isEqualTo(DeviceSelection.ALL);
        assertThat(ConfigParser.parse(template.formatted("[0, 2]"), dir)
                        .orThrow()
                        .devices()
                        .gpuIndices())
                .containsExactly(0, 2);
        assertThat(ConfigParser.parse(template.formatted("[1, 1]"), dir).errors())
                .singleElement()
                .satisfies(p -> assertThat(p.message()).contains("more than once"));
        assertThat(ConfigParser.parse(template.formatted("[-1]"), dir).errors())
                .singleElement()
                .satisfies(p -> assertThat(p.path()).isEqualTo("devices[0]"));
    }

    @Test
    void aLenetTooDeepForItsImagesIsRejected(@TempDir Path dir) {
        ValidationResult result = ConfigParser.parse("""
                {"name": "deep", "model": {"type": "lenet", "channels": [4, 4, 4, 4]},
                 "data": {"train": {"type": "synthetic", "imageShape": [8, 8, 1]}}, "stages": [{"epochs": 1}]}
                """, dir);

        assertThat(result.errors()).singleElement().satisfies(p -> {
            assertThat(p.path()).isEqualTo("model.channels");
            assertThat(p.message()).contains("use at most 3 blocks");
        });
    }

    @Test
    void stagesMustTrainTheSameKindOfOutput(@TempDir Path dir) {
        ValidationResult result = ConfigParser.parse("""
                {"name": "mixed", "model": {"type": "mlp"},
                 "data": {"train": {"type": "synthetic"}},
                 "stages": [{"epochs": 1}, {"epochs": 1, "data": {"train": {"type": "synthetic", "task": "regression"}}}]}
                """, dir);

        assertThat(result.errors())
                .singleElement()
                .satisfies(p -> assertThat(p.path()).isEqualTo("stages[1].data.train"));
    }

    @Test
    void checkpointPolicyAndNonFinitePolicyAreRead(@TempDir Path dir) {
        ValidationResult result = ConfigParser.parse("""
                {"name": "ck", "model": {"type": "mlp"}, "data": {"train": {"type": "synthetic"}},
                 "stages": [{"epochs": 1}], "onNonFinite": "skip",
                 "checkpoint": {"everyEpochs": 2, "keepLast": 5, "monitor": "val/accuracy", "onWriteError": "stop"}}
                """, dir);

        assertThat(result.problems()).isEmpty();
        CheckpointPolicy p = result.config().checkpoint();
        assertThat(p.keepLast()).isEqualTo(5);
        assertThat(p.higherIsBetter()).as("accuracy defaults to max").isTrue();
        assertThat(p.onWriteError()).isEqualTo("stop");
        assertThat(result.config().skipNonFinite()).isTrue();
        assertThat(ConfigParser.parse("""
                {"name": "ck", "model": {"type": "mlp"}, "data": {"train": {"type": "synthetic"}},
                 "stages": [{"epochs": 1}], "checkpoint": {"monitor": "val/auc"}}
                """, dir).errors())
                .singleElement()
                .satisfies(e -> assertThat(e.path()).isEqualTo("checkpoint.monitor"));
    }

    @Test
    void aSourceWithoutItsPathSaysSoAndNothingElse(@TempDir Path dir) {
        for (String source : new String[] {
            "{\"type\": \"csv\"}", "{\"type\": \"idx\"}", "{\"type\": \"images\", \"width\": 4, \"height\": 4}"
        }) {
            String config = """
                    {"name": "nopath", "model": {"type": "mlp"}, "stages": [{"epochs": 1}], "data": {"train": %s}}
                    """.formatted(source);
            assertThat(ConfigParser.parse(config, dir).errors())
                    .as(source)
                    .singleElement()
                    .satisfies(e -> {
                        assertThat(e.path()).isEqualTo("data.train.path");
                        assertThat(e.message()).isEqualTo("is required");
                    });
        }
    }

    /** The schema allows 1 or 3 channels; the validator once refused only 2 and let 5 through to the image reader. */
    @Test
    void anImageFolderTakesOneOrThreeChannelsOnly(@TempDir Path dir) throws IOException {
        Files.createDirectories(dir.resolve("pictures/a"));
        String config = """
                {"name": "img", "model": {"type": "mlp"}, "stages": [{"epochs": 1}],
                 "data": {"train": {"type": "images", "path": "pictures", "width": 4, "height": 4, "channels": %d}}}
                """;
        for (int channels : new int[] {0, 2, 4, 5}) {
            assertThat(ConfigParser.parse(config.formatted(channels), dir).errors())
                    .as("%d channels", channels)
                    .singleElement()
                    .satisfies(e -> {
                        assertThat(e.path()).isEqualTo("data.train.channels");
                        assertThat(e.message()).isEqualTo("must be 1 or 3, not " + channels);
                    });
        }
        assertThat(ConfigParser.parse(config.formatted(3), dir).errors()).isEmpty();
    }

    @Test
    void everySampleConfigIsValidOrNamesTheMissingDebianPackage() throws IOException {
        try (Stream<Path> files = Files.list(TestPaths.sampleConfigs())) {
            List<Path> configs =
                    files.filter(p -> p.toString().endsWith(".json")).sorted().toList();
            assertThat(configs).hasSizeGreaterThanOrEqualTo(3);
            for (Path file : configs) {
                ValidationResult result = ConfigParser.load(file);
                if (file.getFileName().toString().contains("fashion")
                        && !Files.isDirectory(Path.of("/usr/share/datasets/fashion-mnist"))) {
                    assertThat(result.errors())
                            .first()
                            .satisfies(p -> assertThat(p.message()).contains("apt-get install dataset-fashion-mnist"));
                } else {
                    assertThat(result.errors()).as(file.toString()).isEmpty();
                }
            }
        }
    }

    @Test
    void writerOutputParsesBackToAnEqualConfig() throws IOException {
        try (Stream<Path> files = Files.list(TestPaths.sampleConfigs())) {
            for (Path file : files.filter(p -> p.toString().endsWith(".json")).toList()) {
                ValidationResult original = ConfigParser.load(file);
                if (!original.isValid()) {
                    continue;
                }
                RunConfig config = original.config();
                RunConfig again = ConfigParser.parse(ConfigWriter.toJson(config), config.baseDir())
                        .orThrow();
                assertThat(again).as(file.toString()).isEqualTo(config);
                RunConfig absolute = ConfigParser.parse(ConfigWriter.toJsonWithAbsolutePaths(config), Path.of("/"))
                        .orThrow();
                assertThat(absolute.outputPath()).isEqualTo(config.outputPath());
                // a stage's own data holds paths too (a cascade's): compared with both written with absolute paths
                assertThat(ConfigWriter.toJsonWithAbsolutePaths(absolute))
                        .as(file.toString())
                        .isEqualTo(ConfigWriter.toJsonWithAbsolutePaths(config));
            }
        }
    }
}
