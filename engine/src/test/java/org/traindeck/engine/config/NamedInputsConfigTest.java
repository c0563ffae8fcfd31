package org.traindeck.engine.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.cli.MainAccess;
import org.traindeck.engine.data.NamedInputFixtures;

/**
 * Every bad input of a model of named inputs is refused by {@code traindeck validate} with exit code 2 and one
 * message at the place to fix (its line and column), never a stack trace: a node reading an input that does not
 * exist, an input no node reads, arrays of different lengths, a missing array, named inputs for a shorthand, a layer
 * named like an input, a mask of the wrong shape, and a config that names no input for the first node.
 */
class NamedInputsConfigTest {

    private static final String GOOD_LAYERS = """
            [{"name": "conv", "type": "conv2d", "inputs": "image", "filters": 4, "kernel": 3},
             {"name": "pool", "type": "globalPool"},
             {"name": "code", "type": "dense", "inputs": "meta", "units": 6},
             {"name": "both", "type": "concat", "inputs": ["pool", "code"]}]""";

    @TempDir
    Path dir;

    @BeforeEach
    void data() throws Exception {
        Map<String, NamedInputFixtures.Array> arrays = new HashMap<>(NamedInputFixtures.pictureAndCode(40, 1));
        arrays.put("short", NamedInputFixtures.pictureAndCode(30, 1).get("meta"));
        NamedInputFixtures.npz(dir.resolve("set.npz"), arrays);
        NamedInputFixtures.npz(dir.resolve("h.npz"), NamedInputFixtures.histories(20, 8, 3, 1));
    }

    private MainAccess.Result validate(String model, String source) throws Exception {
        Path config = dir.resolve("c.json");
        Files.writeString(config, """
                {
                  "name": "named",
                  "model": %s,
                  "data": { "train": %s, "validationSplit": 0.25 },
                  "stages": [ { "epochs": 1 } ]
                }
                """.formatted(model, source));
        return MainAccess.run("validate", config.toString());
    }

    private static String graph(String layers) {
        return "{\"type\": \"graph\", \"layers\": " + layers + "}";
    }

    private static final String SOURCE = """
            {"type": "numpy", "inputs": {"image": "set.npz:image", "meta": "set.npz:meta"}, "targets": "set.npz:y"}""";

    private static void refused(MainAccess.Result r, String path, String... words) {
        assertThat(r.exitCode()).as(r.stdout() + r.stderr()).isEqualTo(2);
        String all = r.stdout() + r.stderr();
        assertThat(all)
                .contains(path)
                .contains("line ")
                .doesNotContain("Exception")
                .doesNotContain("\tat ");
        for (String w : words) {
            assertThat(all).contains(w);
        }
    }

    @Test
    void theGoodConfigValidates() throws Exception {
        MainAccess.Result r = validate(graph(GOOD_LAYERS), SOURCE);
        assertThat(r.exitCode()).as(r.stdout() + r.stderr()).isZero();
    }

    @Test
    void aNodeReadingAnUnknownInputIsLocatedWithTheNamesThereAre() throws Exception {
        refused(
                validate(graph(GOOD_LAYERS.replace("\"inputs\": \"meta\"", "\"inputs\": \"mta\"")), SOURCE),
                "model.layers[2].inputs",
                "no layer or data input is named \"mta\"",
                "did you mean \"meta\"");
    }

    @Test
    void anInputNoNodeReadsIsLocatedAtItsName() throws Exception {
        String layers = """
                [{"name": "conv", "type": "conv2d", "inputs": "image", "filters": 4, "kernel": 3},
                 {"name": "pool", "type": "globalPool"}]""";
        refused(validate(graph(layers), SOURCE), "data.train.inputs.meta", "is read by no layer");
    }

    @Test
    void arraysOfDifferentLengthsAreRefusedAtTheSecond() throws Exception {
        refused(
                validate(graph(GOOD_LAYERS), SOURCE.replace("set.npz:meta", "set.npz:short")),
                "data.train.inputs.meta",
                "holds 30 samples",
                "holds 40");
    }

    @Test
    void aMissingArrayNamesTheArraysTheFileHas() throws Exception {
        refused(
                validate(graph(GOOD_LAYERS), SOURCE.replace("set.npz:meta", "set.npz:colour")),
                "data.train.inputs.meta",
                "no array \"colour\"");
    }

    @Test
    void namedInputsForAShorthandAreRefused() throws Exception {
        refused(
                validate("{\"type\": \"mlp\", \"hidden\": [8]}", SOURCE),
                "data.train.inputs",
                "write the model as a \"graph\"");
    }

    @Test
    void aLayerNamedLikeAnInputIsRefused() throws Exception {
        refused(
                validate(
                        graph(GOOD_LAYERS
                                .replace("\"name\": \"pool\"", "\"name\": \"meta\"")
                                .replace("[\"pool\", \"code\"]", "[\"meta\", \"code\"]")),
                        SOURCE),
                "model.layers[1].name",
                "names one of the data's inputs");
    }

    @Test
    void aFirstNodeWithoutInputsIsToldToNameOne() throws Exception {
        refused(
                validate(graph(GOOD_LAYERS.replace("\"inputs\": \"image\", ", "")), SOURCE),
                "model.layers[0]",
                "say which it reads");
    }

    @Test
    void aMaskOfTheWrongShapeIsRefused() throws Exception {
        String layers = """
                [{"name": "act", "type": "embedding", "inputs": "actions", "units": 8},
                 {"name": "rew", "type": "dense", "inputs": "rewards", "units": 8},
                 {"name": "sum", "type": "add", "inputs": ["act", "rew"]}]""";
        String source = """
                {"type": "numpy", "task": "sequence", "inputs": {"actions": "h.npz:actions", "rewards": "h.npz:rewards"},
                 "targets": "h.npz:targets", "targetMask": "h.npz:rewards"}""";
        refused(validate(graph(layers), source), "data.train.targetMask", "like the targets");
        MainAccess.Result good = validate(graph(layers), source.replace("h.npz:rewards\"}", "h.npz:mask\"}"));
        assertThat(good.exitCode()).as(good.stdout() + good.stderr()).isZero();
    }

    @Test
    void aTargetMaskOutsideSequencesIsRefused() throws Exception {
        refused(
                validate(graph(GOOD_LAYERS), SOURCE.replace("}", ", \"targetMask\": \"set.npz:y\"}")),
                "data.train.targetMask",
                "per-step targets only");
    }
}
