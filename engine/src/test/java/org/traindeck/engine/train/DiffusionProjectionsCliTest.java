package org.traindeck.engine.train;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.cli.MainAccess;
import org.traindeck.engine.config.DiffusionConfig;
import org.traindeck.engine.config.DiffusionSampling;
import org.traindeck.engine.config.NumpySource;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.config.read.ConfigWriter;
import org.traindeck.engine.data.NamedInputFixtures;

/**
 * A bad {@code diffusion.projections} is refused through the CLI with exit code 2, at the key to fix and its line,
 * never a stack trace: a view that is no whole multiple of its projection (by {@code validate}, and by {@code train}
 * before anything runs), a name that is no conditioning input, an axis that is none, and projections without the
 * sampling that scores them. The run's config writes both as given, and neither when not given.
 */
class DiffusionProjectionsCliTest {

    private static final String CONFIG = """
            {
              "name": "views",
              "outputDir": "out",
              "model": {"type": "graph", "layers": [
                {"name": "t", "type": "timestepEmbedding", "inputs": "timestep", "units": 8, "frequencies": 16},
                {"name": "f", "type": "dense", "inputs": "front", "units": 8},
                {"name": "s", "type": "dense", "inputs": "side", "units": 8},
                {"name": "x", "type": "dense", "inputs": "noisy", "units": 8},
                {"name": "all", "type": "concat", "inputs": ["x", "t", "f", "s"]},
                {"name": "back", "type": "dense", "units": 64},
                {"name": "volume", "type": "reshape", "shape": [1, 4, 4, 4]}]},
              "data": {"train": {"type": "numpy", "task": "diffusion",
                                 "inputs": {"front": "vol.npz:front", "side": "vol.npz:side"},
                                 "targets": "vol.npz:volume",
                                 "diffusion": {"timesteps": 50,
                                               %s
                                               "projections": %s}},
                       "validationSplit": 0.25},
              "stages": [{"epochs": 1, "batchSize": 8}]
            }
            """;

    private static final String SAMPLING = "\"sampling\": {\"count\": 2},";

    @TempDir
    Path dir;

    @BeforeEach
    void data() throws Exception {
        Map<String, NamedInputFixtures.Array> arrays = new HashMap<>(DiffusionSamplingTest.volumesAndViews(16, 1));
        arrays.put("wide", new NamedInputFixtures.Array("<f4", new long[] {16, 6, 6, 1}, new double[16 * 36]));
        NamedInputFixtures.npz(dir.resolve("vol.npz"), arrays);
    }

    private MainAccess.Result run(String command, String sampling, String projections) throws Exception {
        Path config = dir.resolve("c.json");
        Files.writeString(config, CONFIG.formatted(sampling, projections));
        return MainAccess.run(command, config.toString());
    }

    private static void refused(MainAccess.Result r, String path, String line, String... words) {
        String all = r.stdout() + r.stderr();
        assertThat(r.exitCode()).as(all).isEqualTo(2);
        assertThat(all)
                .contains(path)
                .contains(line)
                .doesNotContain("Exception")
                .doesNotContain("\tat ");
        for (String w : words) {
            assertThat(all).contains(w);
        }
    }

    @Test
    void goodProjectionsValidate() throws Exception {
        MainAccess.Result r = run("validate", SAMPLING, "{\"front\": \"depth\", \"side\": \"width\"}");
        assertThat(r.exitCode()).as(r.stdout() + r.stderr()).isZero();
    }

    @Test
    void theRunsConfigWritesSamplingAndProjectionsAsTheyWereGiven() throws Exception {
        RunConfig config = ConfigParser.parse(
                        CONFIG.formatted(
                                "\"sampling\": {\"everyEpochs\": 2, \"steps\": 7, \"count\": 3, \"sampler\": \"ddpm\"},",
                                "{\"side\": \"width\", \"front\": \"depth\"}"),
                        dir)
                .orThrow();
        DiffusionConfig written = ((NumpySource) config.data().train()).diffusion();
        assertThat(written.sampling()).isEqualTo(new DiffusionSampling(2, 7, 3, "ddpm"));
        assertThat(List.copyOf(written.projections().keySet())).containsExactly("side", "front");

        RunConfig again = ConfigParser.parse(ConfigWriter.toJson(config), dir).orThrow();
        assertThat(((NumpySource) again.data().train()).diffusion()).isEqualTo(written);
        assertThat(ConfigWriter.toJson(
                        ConfigParser.parse(CONFIG.formatted("", "{}"), dir).orThrow()))
                .as("neither is written when not given")
                .doesNotContain("sampling")
                .doesNotContain("projections");
    }

    @Test
    void aViewThatIsNoMultipleOfItsProjectionIsLocated() throws Exception {
        String wide = "{\"front\": \"depth\", \"side\": \"width\"}";
        MainAccess.Result validate = runWith("vol.npz:side", "vol.npz:wide", "validate", wide);
        refused(
                validate,
                "data.train.diffusion.projections.side",
                "line 17",
                "\"side\" is 6×6×1",
                "mean along its width is 4×4×1");
        MainAccess.Result train = runWith("vol.npz:side", "vol.npz:wide", "train", wide);
        refused(train, "data.train.diffusion.projections.side", "line 17", "nothing was run");
        assertThat(dir.resolve("out")).doesNotExist();
    }

    @Test
    void aNameThatIsNoConditioningInputIsLocated() throws Exception {
        refused(
                run("validate", SAMPLING, "{\"front\": \"depth\", \"noisy\": \"width\"}"),
                "data.train.diffusion.projections.noisy",
                "line 17",
                "names no conditioning input of this source (its inputs: front, side)");
    }

    @Test
    void anAxisThatIsNoneIsLocated() throws Exception {
        refused(
                run("validate", SAMPLING, "{\"front\": \"diagonal\"}"),
                "data.train.diffusion.projections.front",
                "line 17",
                "must be one of depth, height, width");
    }

    @Test
    void projectionsWithoutSamplingAreLocated() throws Exception {
        refused(
                run("validate", "", "{\"front\": \"depth\"}"),
                "data.train.diffusion.projections",
                "line 17",
                "it needs \"sampling\"");
    }

    private MainAccess.Result runWith(String from, String to, String command, String projections) throws Exception {
        Path config = dir.resolve("c.json");
        Files.writeString(config, CONFIG.formatted(SAMPLING, projections).replace(from, to));
        return MainAccess.run(command, config.toString());
    }
}
