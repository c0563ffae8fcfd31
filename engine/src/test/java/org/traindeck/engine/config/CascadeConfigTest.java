package org.traindeck.engine.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.cli.MainAccess;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.config.read.ConfigWriter;
import org.traindeck.engine.data.CascadeFixtures;

/**
 * A cascade as a user writes it (a stage with a model of its own reading an input derived from its targets) validates
 * with each network's summary, and every bad one is refused by {@code traindeck validate} with exit code 2 at the key
 * to fix: derive on another task, a derived input named like an input the task makes or one of the source's own, a
 * derived input no layer reads, a factor that does not divide the pictures, and a stage model that does not build.
 */
class CascadeConfigTest {

    static final String BASE_MODEL = """
            {"type": "graph", "layers": [
              {"name": "t", "type": "timestepEmbedding", "inputs": "timestep", "units": 8, "frequencies": 8},
              {"name": "map", "type": "dense", "units": 64},
              {"name": "grid", "type": "reshape", "shape": [1, 8, 8]},
              {"name": "both", "type": "concat", "inputs": ["noisy", "grid"]},
              {"name": "conv", "type": "conv2d", "filters": 4, "kernel": 3, "activation": "relu"}]}""";

    static final String UP_MODEL = """
            {"type": "graph", "layers": [
              {"name": "t", "type": "timestepEmbedding", "inputs": "timestep", "units": 8, "frequencies": 8},
              {"name": "map", "type": "dense", "units": 256},
              {"name": "grid", "type": "reshape", "shape": [1, 16, 16]},
              {"name": "both", "type": "concat", "inputs": ["noisy", "lowres", "grid"]},
              {"name": "conv", "type": "conv2d", "filters": 6, "kernel": 3, "activation": "relu"}]}""";

    static final String BASE_SOURCE = """
            {"type": "numpy", "task": "diffusion", "targets": "pictures.npz:low", "diffusion": {"timesteps": 50}}""";

    static final String UP_SOURCE = """
            {"type": "numpy", "task": "diffusion", "targets": "pictures.npz:high",
             "derive": {"lowres": {"downsample": 2, "noise": 0.1}}, "diffusion": {"timesteps": 50}}""";

    @TempDir
    Path dir;

    @BeforeEach
    void data() throws Exception {
        CascadeFixtures.pictures(dir.resolve("pictures.npz"));
    }

    private String text(String baseSource, String upSource, String upModel) {
        return """
                {
                  "name": "cascade",
                  "model": %s,
                  "data": { "train": %s, "validationSplit": 0.25 },
                  "stages": [
                    { "name": "base", "epochs": 1 },
                    { "name": "up", "epochs": 1,
                      "data": { "train": %s, "validationSplit": 0.25 },
                      "model": %s }
                  ]
                }
                """.formatted(BASE_MODEL, baseSource, upSource, upModel);
    }

    private MainAccess.Result validate(String baseSource, String upSource, String upModel) throws Exception {
        Path config = dir.resolve("c.json");
        Files.writeString(config, text(baseSource, upSource, upModel));
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
    void theCascadeValidatesWithEachNetworksSummary() throws Exception {
        MainAccess.Result r = validate(BASE_SOURCE, UP_SOURCE, UP_MODEL);

        assertThat(r.exitCode()).as(r.stdout() + r.stderr()).isZero();
        assertThat(r.stdout()).contains("stage up's own model:").contains("lowres");
        RunConfig config =
                ConfigParser.parse(text(BASE_SOURCE, UP_SOURCE, UP_MODEL), dir).orThrow();
        assertThat(config.cascade()).isTrue();
        assertThat(config.networkStart(1)).isEqualTo(1);
        assertThat(config.modelPathAt(1)).isEqualTo("stages[1].model");
        assertThat(config.modelAt(0)).isEqualTo(config.model());
        NumpySource up = (NumpySource) config.stages().get(1).data().train();
        assertThat(up.derive()).containsEntry("lowres", new DeriveConfig(2, 0.1, true));
        assertThat(up.inputNames()).containsExactly("noisy", "timestep", "lowres");
        // written and read again, the stage's model and the derived input are kept
        assertThat(ConfigParser.parse(ConfigWriter.toJson(config), dir).orThrow())
                .isEqualTo(config);
    }

    @Test
    void deriveOnAnotherTaskIsRefused() throws Exception {
        String regression = """
                {"type": "numpy", "task": "regression", "inputs": "pictures.npz:high", "targets": "pictures.npz:high",
                 "derive": {"lowres": {"downsample": 2}}}""";
        refused(validate(BASE_SOURCE, regression, UP_MODEL), "stages[1].data.train.derive", "task \"diffusion\" only");
    }

    @Test
    void aDerivedInputNamedLikeAnInputTheTaskMakesIsRefused() throws Exception {
        refused(
                validate(BASE_SOURCE, UP_SOURCE.replace("\"lowres\"", "\"noisy\""), UP_MODEL),
                "stages[1].data.train.derive.noisy",
                "an input the diffusion task makes");
    }

    @Test
    void aDerivedInputNamedLikeOneOfTheSourcesInputsIsRefused() throws Exception {
        String clash = UP_SOURCE.replace("\"targets\"", "\"inputs\": {\"lowres\": \"pictures.npz:high\"}, \"targets\"");
        refused(
                validate(BASE_SOURCE, clash, UP_MODEL),
                "stages[1].data.train.derive.lowres",
                "already one of the source's inputs");
    }

    @Test
    void aDerivedInputNoLayerReadsIsRefused() throws Exception {
        refused(
                validate(
                        BASE_SOURCE,
                        UP_SOURCE,
                        UP_MODEL.replace("[\"noisy\", \"lowres\", \"grid\"]", "[\"noisy\", \"grid\"]")),
                "stages[1].data.train.derive.lowres",
                "read by no layer of stages[1].model");
    }

    @Test
    void aFactorThatDoesNotDivideThePicturesIsRefused() throws Exception {
        refused(
                validate(BASE_SOURCE, UP_SOURCE.replace("\"downsample\": 2", "\"downsample\": 3"), UP_MODEL),
                "stages[1].data.train.derive.lowres.downsample",
                "does not divide");
    }

    @Test
    void aStageModelThatDoesNotBuildIsRefusedAtItsOwnPlace() throws Exception {
        refused(
                validate(BASE_SOURCE, UP_SOURCE, UP_MODEL.replace("\"shape\": [1, 16, 16]", "\"shape\": [1, 8, 8]")),
                "stages[1].model.layers[2]");
    }

    @Test
    void deriveWithoutTargetsIsRefused() throws Exception {
        String noTargets = UP_SOURCE.replace("\"targets\": \"pictures.npz:high\",", "");
        refused(validate(BASE_SOURCE, noTargets, UP_MODEL), "stages[1].data.train.derive", "needs \"targets\"");
    }

    @Test
    void aStageModelsStartingWeightsAreCheckedAtItsOwnPlace() throws Exception {
        Files.writeString(dir.resolve("weights.safetensors"), "not safetensors");
        String withInit = UP_MODEL.replace(
                "{\"type\": \"graph\",", "{\"type\": \"graph\", \"init\": {\"from\": \"weights.safetensors\"},");
        refused(validate(BASE_SOURCE, UP_SOURCE, withInit), "stages[1].model.init.from");
    }
}
