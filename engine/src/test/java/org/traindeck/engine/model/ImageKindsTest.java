package org.traindeck.engine.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.engine.model.GraphFixture.assertLearns;
import static org.traindeck.engine.model.GraphFixture.built;
import static org.traindeck.engine.model.GraphFixture.firstError;
import static org.traindeck.engine.model.GraphFixture.model;
import static org.traindeck.engine.model.GraphFixture.row;
import static org.traindeck.engine.model.GraphFixture.shapeOf;
import static org.traindeck.engine.model.GraphFixture.train;

import java.nio.file.Path;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.config.ConfigProblem;

/** separableConv2d, depthwiseConv2d, prelu and reshape: they build from a config, say their shapes, refuse what does not fit, train. */
class ImageKindsTest {

    @TempDir
    Path dir;

    private static final String CONVS = """
            {"name": "dw", "type": "depthwiseConv2d", "kernel": [3, 3], "depthMultiplier": 2},
            {"name": "sep", "type": "separableConv2d", "filters": 6, "kernel": 3, "stride": 2, "depthMultiplier": 2, "activation": "relu"},
            {"name": "act", "type": "prelu"},
            {"type": "globalPool"}""";

    @Test
    void separableDepthwiseAndPreluBuildWithTheirShapesAndParameters() {
        ModelSummary s = built(CONVS, dir).summary();

        assertThat(row(s, "dw").type()).isEqualTo("depthwiseConv2d");
        assertThat(shapeOf(s, "dw")).isEqualTo("[8, 8, 2]");
        assertThat(row(s, "dw").parameters()).isEqualTo(3 * 3 * 1 * 2 + 2);
        assertThat(row(s, "sep").type()).isEqualTo("separableConv2d");
        assertThat(shapeOf(s, "sep")).isEqualTo("[4, 4, 6]");
        // depthwise 3×3×2×2, pointwise 4×6, bias 6
        assertThat(row(s, "sep").parameters()).isEqualTo(36 + 24 + 6);
        assertThat(row(s, "act").type()).isEqualTo("prelu");
        assertThat(shapeOf(s, "act")).isEqualTo("[4, 4, 6]");
        assertThat(row(s, "act").parameters()).isEqualTo(4 * 4 * 6);
    }

    @Test
    void separableDepthwiseAndPreluTrain() {
        assertLearns(
                train(ModelCompiler.configuration(model(CONVS, dir), GraphFixture.IMAGES, 1), GraphFixture.IMAGES, 6));
    }

    @Test
    void aSeparableConvolutionOnASequenceSaysItTakesAnImage() {
        ConfigProblem p = firstError("""
                {"type": "reshape", "shape": [8, 8]},
                {"name": "sep", "type": "separableConv2d", "filters": 4, "kernel": 3},
                {"type": "globalPool"}""", dir);
        assertThat(p.path()).isEqualTo("model.layers[1]");
        assertThat(p.message())
                .contains("layers[1] 'sep' takes an image but gets a sequence [8 steps, 8 features]")
                .contains("use the 1D types");
    }

    @Test
    void aSeparableConvolutionOnOneChannelIsRefusedWithDl4jsReason() {
        ConfigProblem p = firstError(
                "{\"name\": \"sep\", \"type\": \"separableConv2d\", \"filters\": 4, \"kernel\": 3}, {\"type\": \"globalPool\"}",
                dir);
        assertThat(p.path()).isEqualTo("model.layers[0]");
        assertThat(p.message())
                .contains("layers[0] 'sep' cannot take an image of 1 channel")
                .contains("NDArray::reshapei: bad input shape!")
                .contains("use \"conv2d\"");
    }

    @Test
    void aDepthwiseKernelLargerThanTheImageIsRefused() {
        ConfigProblem p = firstError("""
                {"name": "dw", "type": "depthwiseConv2d", "kernel": 9, "padding": "valid"}, {"type": "globalPool"}""", dir);
        assertThat(p.path()).isEqualTo("model.layers[0]");
        assertThat(p.message()).contains("layers[0] 'dw'").contains("kernel covers 9 rows but the input has only 8");
    }

    @Test
    void sharedPreluSlopesAreRefusedWithDl4jsReason() {
        ConfigProblem p = firstError("""
                {"type": "conv2d", "filters": 4, "kernel": 3},
                {"name": "act", "type": "prelu", "sharedAxes": [2, 3]},
                {"type": "globalPool"}""", dir);
        assertThat(p.path()).isEqualTo("model.layers[1]");
        assertThat(p.message())
                .contains("layers[1] 'act' cannot share slopes")
                .contains("DL4J 1.0.0-M2.1's PReLULayer fails in backprop")
                .contains("prelu_bp");
    }

    @Test
    void reshapeGivesVectorsSequencesImagesAndVolumesTheirFullShape() {
        ModelSummary s = built("""
                {"name": "vec", "type": "reshape", "shape": [64]},
                {"name": "seq", "type": "reshape", "shape": [4, 16]},
                {"name": "img", "type": "reshape", "shape": [4, 4, 4]},
                {"name": "vol", "type": "reshape", "shape": [2, 2, 4, 4]},
                {"name": "c3", "type": "conv3d", "filters": 3, "kernel": 2},
                {"type": "globalPool"}""", dir).summary();

        assertThat(row(s, "vec").type()).isEqualTo("reshape");
        assertThat(shapeOf(s, "vec")).isEqualTo("[64]");
        // DL4J's own ReshapeVertex would say [4, ?] here, and throw on the volume
        assertThat(shapeOf(s, "seq")).isEqualTo("[16, 4]");
        assertThat(shapeOf(s, "img")).isEqualTo("[4, 4, 4]");
        assertThat(shapeOf(s, "vol")).isEqualTo("[2, 4, 4, 2]");
        assertThat(shapeOf(s, "c3")).isEqualTo("[2, 4, 4, 3]");
    }

    @Test
    void aReshapeIntoAVolumeTrainsAndRoundTripsThroughDl4jsJson() {
        ComputationGraphConfiguration conf = ModelCompiler.configuration(model("""
                {"type": "reshape", "shape": [1, 4, 4, 4]},
                {"type": "conv3d", "filters": 4, "kernel": 3, "activation": "relu"},
                {"type": "reshape", "shape": [16, 16]},
                {"type": "lstm", "units": 4, "returnSequences": false}""", dir), GraphFixture.IMAGES, 1);

        assertThat(ComputationGraphConfiguration.fromJson(conf.toJson())).isEqualTo(conf);
        assertLearns(train(conf, GraphFixture.IMAGES, 6));
    }

    @Test
    void aReshapeWithTheWrongCountSaysBothCounts() {
        ConfigProblem p = firstError(
                "{\"name\": \"r\", \"type\": \"reshape\", \"shape\": [3, 7]}, {\"type\": \"globalPool\"}", dir);
        assertThat(p.path()).isEqualTo("model.layers[0]");
        assertThat(p.message())
                .contains("layers[0] 'r' makes [3, 7] = 21 values per sample, but its input an image 8×8×1 has 64");
    }
}
