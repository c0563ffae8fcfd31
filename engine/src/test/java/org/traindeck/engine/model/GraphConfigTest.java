package org.traindeck.engine.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.config.ValidationResult;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.config.read.ConfigWriter;
import org.traindeck.engine.train.RunRequest;
import org.traindeck.engine.train.TrainingRun;

/** A layer graph in the config: read strictly, located problems, and a graph that DL4J builds and that round-trips. */
class GraphConfigTest {

    @TempDir
    Path dir;

    private static String config(String layers) {
        return """
                {"name": "g", "model": {"type": "graph", "layers": [%s]},
                 "data": {"train": {"type": "synthetic", "samples": 64, "imageShape": [8, 8, 1], "numClasses": 2}},
                 "stages": [{"epochs": 1, "batchSize": 16}]}
                """.formatted(layers);
    }

    private ValidationResult check(String layers) {
        return ModelCheck.checkWithSummary(ConfigParser.parse(config(layers), dir))
                .result();
    }

    private ConfigProblem firstError(String layers) {
        ValidationResult r = check(layers);
        assertThat(r.isValid()).as("expected a problem in %s", layers).isFalse();
        return r.errors().get(0);
    }

    @Test
    void aSkipConnectionGraphBuildsAndEveryNodeShowsInTheSummary() {
        ModelCheck.Checked c = ModelCheck.checkWithSummary(ConfigParser.parse(config("""
                {"name": "c1", "type": "conv2d", "filters": 4, "kernel": 3, "activation": "relu"},
                {"name": "c2", "type": "conv2d", "filters": 4, "kernel": [3, 3]},
                {"name": "sum", "type": "add", "inputs": ["c1", "c2"]},
                {"type": "maxPool2d"},
                {"type": "flatten"},
                {"name": "fc", "type": "dense", "units": 8}"""), dir));

        assertThat(c.result().errors()).isEmpty();
        assertThat(c.summary().rows())
                .extracting(ModelSummary.Row::name)
                .containsExactly("input", "c1", "c2", "sum", "maxPool2d3", "flatten4", "fc", "output");
        assertThat(c.summary().rows().get(3).outputShape()).isEqualTo("[8, 8, 4]");
        assertThat(c.summary().rows().get(4).outputShape()).isEqualTo("[4, 4, 4]");
        assertThat(c.summary().parameters()).isEqualTo(40 + 148 + (64 * 8 + 8) + (8 * 2 + 2));
    }

    @Test
    void theConfigWrittenBackReadsAsTheSameConfig() {
        RunConfig read = ConfigParser.parse(config("""
                {"name": "c1", "type": "conv2d", "filters": 4, "kernel": 3},
                {"type": "globalPool", "mode": "max"}"""), dir).orThrow();
        RunConfig again = ConfigParser.parse(ConfigWriter.toJson(read), dir).orThrow();

        assertThat(again).isEqualTo(read);
        assertThat(ConfigWriter.modelJson(again.model()))
                .contains("\"kernel\":3", "\"padding\":\"same\"", "\"mode\":\"max\"");
    }

    @Test
    void theGraphRoundTripsThroughDl4jsJson() {
        RunConfig read = ConfigParser.parse(config("""
                {"type": "conv2d", "filters": 4, "kernel": 3}, {"type": "batchNorm"}, {"type": "globalPool"}"""), dir).orThrow();
        ModelInput input = new ModelInput(InputType.convolutional(8, 8, 1), Task.CLASSIFICATION, 2);
        ComputationGraphConfiguration conf = ModelCompiler.configuration(read.model(), input, 1);

        assertThat(ComputationGraphConfiguration.fromJson(conf.toJson())).isEqualTo(conf);
    }

    @Test
    void anUnknownTypeNamesTheNearestOne() {
        ConfigProblem p = firstError("{\"type\": \"conv2\", \"filters\": 4, \"kernel\": 3}");
        assertThat(p.path()).isEqualTo("model.layers[0].type");
        assertThat(p.message()).isEqualTo("unknown layer type 'conv2': did you mean 'conv2d'?");
        assertThat(p.line()).isPositive();
    }

    @Test
    void aMissingRequiredOptionIsSaidOnceWithTheLayerType() {
        ValidationResult r = ConfigParser.parse(config("{\"type\": \"dense\"}"), dir);
        assertThat(r.errors()).singleElement().satisfies(p -> {
            assertThat(p.path()).isEqualTo("model.layers[0].units");
            assertThat(p.message()).isEqualTo("is required for a \"dense\" layer");
        });
    }

    @Test
    void anOptionTheTypeDoesNotTakeIsRefused() {
        ConfigProblem p = firstError("{\"type\": \"dense\", \"units\": 4, \"filters\": 3}");
        assertThat(p.path()).isEqualTo("model.layers[0].filters");
        assertThat(p.message()).contains("unknown key \"filters\"");
    }

    @Test
    void aDanglingInputSaysWhichNameWasMeant() {
        ConfigProblem p = firstError("""
                {"name": "conv", "type": "conv2d", "filters": 4, "kernel": 3},
                {"type": "globalPool", "inputs": ["cnv"]}""");
        assertThat(p.path()).isEqualTo("model.layers[1].inputs[0]");
        assertThat(p.message()).contains("no layer is named \"cnv\"").contains("did you mean \"conv\"");
    }

    @Test
    void aNodeThatTakesItselfOrACycleIsRefused() {
        assertThat(firstError("{\"name\": \"a\", \"type\": \"dense\", \"units\": 2, \"inputs\": \"a\"}")
                        .message())
                .contains("takes its own output");
        ConfigProblem cycle = firstError("""
                {"name": "a", "type": "dense", "units": 2, "inputs": ["b"]},
                {"name": "b", "type": "dense", "units": 2, "inputs": ["a"]}""");
        assertThat(cycle.path()).isEqualTo("model.layers");
        assertThat(cycle.message()).contains("cycle").contains("a → b → a");
    }

    /** Issue 35: the second "a" took the first "a" (its predecessor) and was also called a loop. */
    @Test
    void twoNodesOfTheSameNameGiveOneErrorOnly() {
        ValidationResult r = check("""
                {"name": "a", "type": "conv2d", "filters": 4, "kernel": 3},
                {"name": "a", "type": "conv2d", "filters": 4, "kernel": 3},
                {"type": "globalPool"}""");
        assertThat(r.errors()).hasSize(1);
        assertThat(r.errors().get(0).path()).isEqualTo("model.layers[1].name");
        assertThat(r.errors().get(0).message()).contains("already named \"a\"");
    }

    @Test
    void aNodeWhoseOutputNobodyTakesIsNamed() {
        ConfigProblem p = firstError("""
                {"name": "lost", "type": "conv2d", "filters": 4, "kernel": 3},
                {"name": "used", "type": "conv2d", "filters": 4, "kernel": 3, "inputs": "input"},
                {"type": "globalPool"}""");
        assertThat(p.path()).isEqualTo("model.layers[0]");
        assertThat(p.message()).contains("\"lost\" is not used");
    }

    @Test
    void aKernelLargerThanItsInputIsAShapeErrorAtItsNode() {
        ConfigProblem p = firstError("""
                {"type": "conv2d", "filters": 4, "kernel": 3},
                {"name": "big", "type": "conv2d", "filters": 4, "kernel": 9, "padding": "valid"},
                {"type": "globalPool"}""");
        assertThat(p.path()).isEqualTo("model.layers[1]");
        assertThat(p.message()).contains("layers[1] 'big'").contains("kernel covers 9 rows but the input has only 8");
        assertThat(p.line()).isPositive();
    }

    @Test
    void aSequenceLayerOnAnImageSaysWhatToAdd() {
        ConfigProblem p = firstError(
                "{\"name\": \"c\", \"type\": \"conv1d\", \"filters\": 4, \"kernel\": 3}, {\"type\": \"globalPool\"}");
        assertThat(p.message()).contains("layers[0] 'c' takes a sequence [steps, features] but gets an image 8×8×1");
    }

    @Test
    void knownDl4jFailuresAreRefusedWithTheReason() {
        ConfigProblem afterConv1d = firstError("""
                {"name": "r", "type": "reshape", "shape": [8, 8]},
                {"type": "conv1d", "filters": 4, "kernel": 3},
                {"name": "bn", "type": "batchNorm"},
                {"type": "globalPool"}""");
        assertThat(afterConv1d.path()).isEqualTo("model.layers[2]");
        assertThat(afterConv1d.message())
                .contains("layers[2] 'bn' cannot take a sequence: DL4J 1.0.0-M2.1's BatchNormalization "
                        + "fails in backprop after a 1D convolution");

        String volumes = """
                {"type": "reshape", "shape": [1, 4, 4, 4]},
                {"name": "a", "type": "conv3d", "filters": 4, "kernel": 3},
                {"name": "b", "type": "conv3d", "filters": 4, "kernel": 3, "inputs": "reshape0"},
                {"name": "joined", "type": "concat", "inputs": ["a", "b"]},
                {"type": "globalPool"}""";
        ConfigProblem concat = firstError(volumes);
        assertThat(concat.path()).isEqualTo("model.layers[3]");
        assertThat(concat.message())
                .contains("layers[3] 'joined' cannot join volumes: DL4J 1.0.0-M2.1's MergeVertex fails in "
                        + "backprop on 3D feature maps");
        assertThat(check(volumes.replace("\"concat\"", "\"add\"")).errors()).isEmpty();
    }

    private static String denseLayers(int count, int units) {
        StringBuilder layers = new StringBuilder();
        for (int i = 0; i < count; i++) {
            layers.append(i == 0 ? "" : ",")
                    .append("{\"type\":\"dense\",\"units\":")
                    .append(units)
                    .append('}');
        }
        return layers.toString();
    }

    @Test
    void aGraphOfAHundredThousandNodesIsRefusedUnread() {
        ValidationResult r = ConfigParser.parse(config(denseLayers(100_000, 2)), dir);

        // over a megabyte: the wrong file, refused before it is parsed
        assertThat(r.errors())
                .singleElement()
                .satisfies(p -> assertThat(p.message()).contains("a run config is at most"));
    }

    @Test
    void moreLayersThanAGraphTakesAreRefusedBeforeAnyIsRead() {
        // every node is also wrong: had any been read, its problem would be listed too
        ValidationResult r = ConfigParser.parse(config(denseLayers(2_001, 0)), dir);

        assertThat(r.errors()).singleElement().satisfies(p -> {
            assertThat(p.path()).isEqualTo("model.layers");
            assertThat(p.message()).contains("has 2001 layers; a graph has at most 2000");
        });
    }

    @Test
    void anAbsurdWidthIsRefusedByTheSchemaBound() {
        ConfigProblem p = firstError("{\"type\": \"dense\", \"units\": 1000000000}");
        assertThat(p.path()).isEqualTo("model.layers[0].units");
        assertThat(p.message()).contains("between 1 and 65536");
    }

    @Test
    void headsThatDoNotDivideTheWidthAreRefused() {
        ValidationResult r = ConfigParser.parse("""
                {"name": "v", "model": {"type": "vit", "width": 64, "heads": 5},
                 "data": {"train": {"type": "synthetic", "samples": 64, "imageShape": [8, 8, 1], "numClasses": 2}},
                 "stages": [{"epochs": 1}]}""", dir);
        assertThat(r.errors()).singleElement().satisfies(p -> {
            assertThat(p.path()).isEqualTo("model.heads");
            assertThat(p.message()).contains("5 heads do not divide the width 64");
        });
    }

    @Test
    void theHeadMustSeeAVectorForClasses() {
        ConfigProblem p = firstError(
                "{\"type\": \"conv2d\", \"filters\": 4, \"kernel\": 3}, {\"name\": \"seq\", \"type\": \"reshape\", \"shape\": [4, 64]}");
        assertThat(p.path()).isEqualTo("model.layers[1]");
        assertThat(p.message())
                .isEqualTo(
                        "the head takes the output of 'seq': a classification head takes a vector per sample but gets "
                                + "a sequence [64 steps, 4 features]: end with \"globalPool\" or \"firstToken\"");
    }

    @Test
    void expandedShorthandsAreGraphs() {
        ModelConfig.Graph g = ModelCompiler.expanded(new ModelConfig.Vit(4, 32, 2, 4, 2, true, 0, false, "dl4j"));
        assertThat(g.layers()).extracting(l -> l.type()).startsWith("patches", "layerNorm", "attention", "add");
        assertThat(g.layers().get(g.layers().size() - 1).type()).isEqualTo("firstToken");
    }

    /** Issue 35: DL4J makes a pooled sequence a vector; the validator called it a sequence and refused valid graphs. */
    @Test
    void aSequencePooledGloballyIsAVector() {
        ModelCheck.Checked c = ModelCheck.checkWithSummary(ConfigParser.parse("""
                {"name": "v", "model": {"type": "vit", "patch": 7, "width": 16, "depth": 1, "heads": 2, "classToken": false},
                 "data": {"train": {"type": "synthetic", "samples": 64, "imageShape": [28, 28, 1], "numClasses": 10}},
                 "stages": [{"epochs": 1, "batchSize": 16}]}""", dir));
        assertThat(c.result().errors()).isEmpty();
        ValidationResult patches = check("""
                {"type": "patches", "size": 4, "units": 8},
                {"type": "globalPool"}""");
        assertThat(patches.errors()).isEmpty();
    }

    @Test
    void aViTWithoutAClassTokenAndPatchesThenGlobalPoolTrain() throws Exception {
        for (String model : new String[] {
            "{\"type\": \"vit\", \"patch\": 7, \"width\": 16, \"depth\": 1, \"heads\": 2, \"classToken\": false}",
            "{\"type\": \"graph\", \"layers\": [{\"type\": \"patches\", \"size\": 7, \"units\": 8}, {\"type\": \"globalPool\"}]}"
        }) {
            RunResult r = TrainingRun.open(RunRequest.of(
                            ConfigParser.parse("""
                    {"name": "v", "outputDir": "out", "model": %s,
                     "data": {"train": {"type": "synthetic", "samples": 64, "imageShape": [28, 28, 1], "numClasses": 10}},
                     "stages": [{"epochs": 1, "batchSize": 16}]}""".formatted(model), dir).orThrow()))
                    .runHere();
            assertThat(r.status()).as("%s: %s", model, r.message()).isEqualTo(RunResult.Status.FINISHED);
        }
    }
}
