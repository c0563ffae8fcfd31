package org.traindeck.engine.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.cli.MainAccess;
import org.traindeck.engine.data.NamedInputFixtures;

/**
 * A diffusion source as a user writes it validates, and each bad one is refused by {@code traindeck validate} with
 * exit code 2 and a message at the key to fix: no targets, a "timestep" no layer reads, a graph whose output is not
 * the sample's shape, a conditioning array named like an input the task makes, and diffusion options on another task.
 */
class DiffusionConfigTest {

    static final String LAYERS = """
            [{"name": "t", "type": "dense", "inputs": "timestep", "units": 8, "activation": "tanh"},
             {"name": "c", "type": "dense", "inputs": "meta", "units": 8, "activation": "tanh"},
             {"name": "tc", "type": "concat", "inputs": ["t", "c"]},
             {"name": "map", "type": "dense", "units": 36},
             {"name": "grid", "type": "reshape", "shape": [1, 6, 6]},
             {"name": "both", "type": "concat", "inputs": ["noisy", "grid"]},
             {"name": "conv", "type": "conv2d", "filters": 8, "kernel": 3, "activation": "relu"}]""";

    static final String SOURCE = """
            {"type": "numpy", "task": "diffusion", "inputs": {"meta": "set.npz:meta"}, "targets": "set.npz:image",
             "diffusion": {"timesteps": 100, "schedule": "cosine", "prediction": "v", "lossWeighting": "minSnr"}}""";

    @TempDir
    Path dir;

    @BeforeEach
    void data() throws Exception {
        NamedInputFixtures.npz(dir.resolve("set.npz"), NamedInputFixtures.pictureAndCode(40, 1));
    }

    private MainAccess.Result validate(String layers, String source) throws Exception {
        Path config = dir.resolve("c.json");
        Files.writeString(config, """
                {
                  "name": "diffusion",
                  "model": {"type": "graph", "layers": %s},
                  "data": { "train": %s, "validationSplit": 0.25 },
                  "stages": [ { "epochs": 1 } ]
                }
                """.formatted(layers, source));
        return MainAccess.run("validate", config.toString(), "--summary");
    }

    private static void refused(MainAccess.Result r, String path, String... words) {
        assertThat(r.exitCode()).as(r.stdout() + r.stderr()).isEqualTo(2);
        String all = r.stdout() + r.stderr();
        assertThat(all).contains(path).doesNotContain("Exception").doesNotContain("\tat ");
        for (String w : words) {
            assertThat(all).contains(w);
        }
    }

    @Test
    void theGoodConfigValidatesWithTheInputsTheTaskMakes() throws Exception {
        MainAccess.Result r = validate(LAYERS, SOURCE);
        assertThat(r.exitCode()).as(r.stdout() + r.stderr()).isZero();
        assertThat(r.stdout()).contains("noisy").contains("timestep").contains("meta");
    }

    @Test
    void aTimestepEmbeddingCountsItsParameters() throws Exception {
        String layers = LAYERS.replace(
                "\"type\": \"dense\", \"inputs\": \"timestep\", \"units\": 8, \"activation\": \"tanh\"",
                "\"type\": \"timestepEmbedding\", \"inputs\": \"timestep\", \"units\": 8, \"frequencies\": 16");
        MainAccess.Result r = validate(layers, SOURCE);
        assertThat(r.exitCode()).as(r.stdout() + r.stderr()).isZero();
        // 16 · 8 + 8 + 8 · 8 + 8
        assertThat(r.stdout()).containsPattern("t\\s.*timestepEmbedding.*\\b208\\b");
    }

    @Test
    void aTimestepEmbeddingOfAnythingButTheTimestepIsRefused() throws Exception {
        String layers = LAYERS.replace(
                        "\"type\": \"dense\", \"inputs\": \"timestep\", \"units\": 8, \"activation\": \"tanh\"",
                        "\"type\": \"dense\", \"inputs\": \"timestep\", \"units\": 8")
                .replace(
                        "{\"name\": \"c\", \"type\": \"dense\", \"inputs\": \"meta\", \"units\": 8, \"activation\": \"tanh\"}",
                        "{\"name\": \"c\", \"type\": \"timestepEmbedding\", \"inputs\": \"meta\", \"units\": 8}");
        refused(validate(layers, SOURCE), "model.layers[1]", "embeds one timestep per sample");
    }

    @Test
    void anUnconditionalModelNamesNoInputs() throws Exception {
        String layers = LAYERS.replace("\"inputs\": \"meta\"", "\"inputs\": \"t\"");
        MainAccess.Result r = validate(layers, SOURCE.replace("\"inputs\": {\"meta\": \"set.npz:meta\"}, ", ""));
        assertThat(r.exitCode()).as(r.stdout() + r.stderr()).isZero();
    }

    @Test
    void aDiffusionTaskWithoutTargetsIsLocated() throws Exception {
        refused(
                validate(LAYERS, SOURCE.replace("\"targets\": \"set.npz:image\",", "")),
                "data.train.targets",
                "is required for diffusion");
    }

    @Test
    void aTimestepNoLayerReadsIsLocatedAtTheTask() throws Exception {
        String layers = LAYERS.replace("\"inputs\": \"timestep\"", "\"inputs\": \"meta\"");
        refused(validate(layers, SOURCE), "data.train.task", "no layer reads \"timestep\"");
    }

    @Test
    void aGraphWhoseOutputIsNotTheSamplesShapeIsRefused() throws Exception {
        String layers = LAYERS.substring(0, LAYERS.lastIndexOf(']')) + ", {\"type\": \"maxPool2d\"}]";
        refused(validate(layers, SOURCE), "model", "the denoising target of the sample", "up-sample back");
    }

    @Test
    void aConditioningArrayNamedLikeTheNoisedSampleIsLocated() throws Exception {
        refused(
                validate(
                        LAYERS,
                        SOURCE.replace(
                                "{\"meta\": \"set.npz:meta\"}",
                                "{\"meta\": \"set.npz:meta\", \"noisy\": \"set.npz:meta\"}")),
                "data.train.inputs.noisy",
                "give this conditioning array another name");
    }

    @Test
    void diffusionOptionsOnAnotherTaskAreLocated() throws Exception {
        String source = """
                {"type": "numpy", "inputs": "set.npz:image", "targets": "set.npz:y", "diffusion": {"timesteps": 10}}""";
        refused(
                validate("[{\"type\": \"globalPool\"}]", source),
                "data.train.diffusion",
                "applies to task \"diffusion\" only");
    }
}
