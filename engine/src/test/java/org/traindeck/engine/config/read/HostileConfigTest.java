package org.traindeck.engine.config.read;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.ValidationResult;

/**
 * A config file too large to be one, one with thousands of problems, and every value of full configs left out or
 * replaced by one of another kind: a short, clear answer, never a crash.
 */
class HostileConfigTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** A value of each other kind, and MissingNode for leaving it out. */
    private static final List<JsonNode> SPOILT = List.of(
            TextNode.valueOf("x"),
            DoubleNode.valueOf(1.5),
            IntNode.valueOf(-1),
            JSON.createObjectNode(),
            JSON.createArrayNode(),
            NullNode.getInstance(),
            BooleanNode.TRUE,
            MissingNode.getInstance());

    /** Configs that between them hold every section and every variant. */
    private static List<ObjectNode> fullConfigs(Path dir) throws Exception {
        Files.writeString(dir.resolve("d.csv"), "1,2,0\n3,4,1\n");
        Files.createDirectories(dir.resolve("pictures/a"));
        Files.createDirectories(dir.resolve("idx"));
        Files.createFile(dir.resolve("idx/train-images-idx3-ubyte"));
        Files.createFile(dir.resolve("idx/train-labels-idx1-ubyte"));
        List<ObjectNode> configs = new ArrayList<>();
        for (String text : List.of("""
                {"name": "a", "outputDir": "out", "seed": 1, "devices": [0, 1], "onNonFinite": "skip", "stepTimeoutSeconds": 60,
                 "model": {"type": "lenet", "channels": [4], "kernelSize": 3, "dense": 8, "activation": "tanh", "dropout": 0.1, "batchNorm": true},
                 "data": {"train": {"type": "csv", "path": "d.csv", "labelColumn": -1, "header": false, "delimiter": ",",
                                    "task": "classification", "numClasses": 2, "imageShape": [4, 4, 1], "normalize": "minmax", "limit": 2},
                          "validation": {"type": "images", "path": "pictures", "width": 4, "height": 4, "channels": 1}, "shuffle": false},
                 "stages": [{"name": "s", "epochs": 1, "batchSize": 2, "gradientClipping": 1, "accumulationSteps": 1, "precision": "float32",
                             "optimizer": {"type": "adamw", "learningRate": 0.01, "beta1": 0.9, "beta2": 0.99, "epsilon": 1e-7, "weightDecay": 0.1},
                             "schedule": {"type": "warmupCosine", "warmupEpochs": 0.5, "minLearningRate": 0.0001},
                             "augmentation": {"rotate90": true, "flipHorizontal": true, "flipVertical": false, "brightness": 0.1, "contrast": 0.1},
                             "validationInterval": 1,
                             "data": {"train": {"type": "idx", "path": "idx", "split": "train", "limit": 1}, "validationSplit": 0.2}}],
                 "logging": {"jsonl": true, "csv": false, "tensorboard": true, "everySteps": 2},
                 "checkpoint": {"everyEpochs": 1, "everyMinutes": 5, "keepLast": 2, "keepBestPerStage": true, "monitor": "val/accuracy",
                                "mode": "max", "onWriteError": "stop"},
                 "parallel": {"mode": "averaging", "averagingFrequency": 2, "prefetch": 1, "lrScaling": "sqrt", "fallback": false,
                              "baselineSamplesPerSecond": 10},
                 "nccl": {"NCCL_TIMEOUT": 60, "NCCL_DEBUG": "INFO", "custom": {"MY_VAR": "x"}},
                 "performance": {"onednn": false}}
                """, """
                {"name": "b", "devices": "cpu:2", "model": {"type": "resnet", "blocks": 1, "channels": 4},
                 "data": {"train": {"type": "synthetic", "task": "classification", "samples": 50, "imageShape": [8, 8, 1], "numClasses": 2,
                                    "noise": 0.1}},
                 "stages": [{"epochs": 1, "optimizer": {"type": "nesterovs", "momentum": 0.8}, "schedule": {"type": "step", "everyEpochs": 1, "gamma": 0.5}},
                            {"epochs": 1, "optimizer": {"type": "rmsprop", "epsilon": 1e-6}, "schedule": {"type": "warmupCosine", "warmupSteps": 2}}]}
                """, """
                {"name": "c", "model": {"type": "mlp", "hidden": [8, 4]},
                 "data": {"train": {"type": "synthetic", "task": "regression", "features": 3}}, "stages": [{"epochs": 1, "optimizer": {"type": "sgd"}}]}
                """)) {
            configs.add((ObjectNode) JSON.readTree(text));
        }
        return configs;
    }

    @Test
    void everyValueLeftOutOrOfAnotherKindIsAProblemNotACrash(@TempDir Path dir) throws Exception {
        int tried = 0;
        List<String> crashes = new ArrayList<>();
        for (ObjectNode config : fullConfigs(dir)) {
            assertThat(ConfigParser.parse(JSON.writeValueAsString(config), dir).errors())
                    .as(config.get("name") + " unspoilt")
                    .isEmpty();
            for (String pointer : pointers(config, "")) {
                for (JsonNode spoilt : SPOILT) {
                    ObjectNode copy = config.deepCopy();
                    replace(copy, pointer, spoilt);
                    tried++;
                    try {
                        ValidationResult r = ConfigParser.parse(JSON.writeValueAsString(copy), dir);
                        if (r.config() == null && r.errors().isEmpty()) {
                            crashes.add(pointer + " = " + spoilt + ": refused without a reason");
                        }
                    } catch (RuntimeException e) {
                        crashes.add(pointer + " = " + (spoilt.isMissingNode() ? "(left out)" : spoilt) + ": " + e);
                    }
                }
            }
        }
        assertThat(tried).as("spoilt configs").isGreaterThan(1000);
        assertThat(crashes).isEmpty();
    }

    /** JSON Pointers of every value below {@code node}. */
    private static List<String> pointers(JsonNode node, String at) {
        List<String> out = new ArrayList<>();
        if (node.isObject()) {
            node.fields().forEachRemaining(f -> {
                String p = at + "/" + f.getKey();
                out.add(p);
                out.addAll(pointers(f.getValue(), p));
            });
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                out.add(at + "/" + i);
                out.addAll(pointers(node.get(i), at + "/" + i));
            }
        }
        return out;
    }

    private static void replace(ObjectNode root, String pointer, JsonNode value) {
        int cut = pointer.lastIndexOf('/');
        JsonNode parent = root.at(pointer.substring(0, cut));
        String last = pointer.substring(cut + 1);
        if (parent instanceof ObjectNode o) {
            if (value.isMissingNode()) {
                o.remove(last);
            } else {
                o.set(last, value);
            }
        } else if (parent instanceof ArrayNode a) {
            if (value.isMissingNode()) {
                a.remove(Integer.parseInt(last));
            } else {
                a.set(Integer.parseInt(last), value);
            }
        }
    }

    @Test
    void aMultiMegabyteFileIsRefusedBeforeItIsParsed(@TempDir Path dir) throws Exception {
        Path big = dir.resolve("big.json");
        // never closed: had the file been parsed, its syntax error would be among the problems (no stopwatch needed)
        Files.writeString(big, "{\"name\": \"x\", \"junk\": \"" + "a".repeat(50 << 20));

        ValidationResult r = ConfigParser.load(big);

        assertThat(r.errors())
                .singleElement()
                .satisfies(e -> assertThat(e.message())
                        .contains("is 52.4 MB, but a run config is at most 1024 kB: is it the right file?"));
    }

    @Test
    void thousandsOfProblemsAreCountedNotAllListed(@TempDir Path dir) {
        StringBuilder json = new StringBuilder(
                "{\"name\": \"x\", \"model\": {\"type\": \"mlp\"}, \"data\": {\"train\": {\"type\": \"synthetic\"}},"
                        + " \"stages\": [{\"epochs\": 1}]");
        for (int i = 0; i < 5000; i++) {
            json.append(", \"unknown").append(i).append("\": ").append(i);
        }
        json.append('}');

        List<ConfigProblem> problems = ConfigParser.parse(json.toString(), dir).problems();

        assertThat(problems).hasSize(Problems.MAX_SHOWN + 1);
        assertThat(problems.get(0).message()).contains("unknown key \"unknown0\"");
        assertThat(problems.get(Problems.MAX_SHOWN).message())
                .contains("… and 4900 more problem(s) (4900 error(s), 0 warning(s))");
    }
}
