package org.traindeck.engine.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.engine.model.GraphFixture.built;
import static org.traindeck.engine.model.GraphFixture.firstError;
import static org.traindeck.engine.model.GraphFixture.row;
import static org.traindeck.engine.model.GraphFixture.shapeOf;

import java.nio.file.Path;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.model.kernels.embedding.ConditionedUnpatch3D;
import org.traindeck.engine.model.kernels.embedding.PatchEmbedding3DKernel;
import org.traindeck.engine.model.kernels.embedding.Unpatch3DKernel;
import org.traindeck.engine.model.layers.PatchEmbedding3D;
import org.traindeck.engine.model.layers.Unpatch3D;

/**
 * The patches3d and unpatch3d nodes in a graph (the 8×8×1 images reshaped into volumes): their shapes and parameter
 * counts in the summary, the kernel choice, and the located errors for a size that does not divide the volume, a
 * token count that is not a cube without a grid, a grid that does not hold the tokens, and an image for a volume; with
 * a condition, DiT's final layer.
 */
class VolumePatchNodesTest {

    @TempDir
    Path dir;

    private static final String CUBE = """
            {"type": "reshape", "shape": [1, 4, 4, 4]},
            {"name": "tokens", "type": "patches3d", "size": 2, "units": 6%s},
            {"name": "volume", "type": "unpatch3d", "size": 2, "channels": 3%s},
            {"type": "globalPool"}""";

    private static final String FLAT = """
            {"type": "reshape", "shape": [2, 4, 4, 2]},
            {"name": "tokens", "type": "patches3d", "size": 2, "units": 6},
            {"name": "volume", "type": "unpatch3d", "size": 2, "channels": 1%s},
            {"type": "globalPool"}""";

    @Test
    void shapesAndParameterCountsInTheSummary() {
        ModelCheck.Checked c = built(CUBE.formatted("", ""), dir);
        assertThat(shapeOf(c.summary(), "tokens")).isEqualTo("[8, 6]");
        assertThat(shapeOf(c.summary(), "volume")).isEqualTo("[4, 4, 4, 3]");
        // 2³·1·6 projection + 6 bias + 8·6 positions; 6·(2³·3) weights + 2³·3 bias
        assertThat(row(c.summary(), "tokens").parameters()).isEqualTo(48 + 6 + 48);
        assertThat(row(c.summary(), "volume").parameters()).isEqualTo(6 * 24 + 24);
        ModelCheck.Checked grid = built(FLAT.formatted(", \"grid\": [2, 2, 1]"), dir);
        assertThat(shapeOf(grid.summary(), "volume")).isEqualTo("[4, 4, 2, 1]");
    }

    @Test
    void theKernelUnlessTheNodeAsksForDl4j() {
        ComputationGraphConfiguration own =
                ModelCompiler.configuration(GraphFixture.model(CUBE.formatted("", ""), dir), GraphFixture.IMAGES, 1);
        assertThat(own.getVertices().get("tokens").toString()).contains("PatchEmbedding3DKernel");
        assertThat(layerOf(own, "tokens")).isInstanceOf(PatchEmbedding3DKernel.class);
        assertThat(layerOf(own, "volume")).isInstanceOf(Unpatch3DKernel.class);
        String dl4j = ", \"kernel\": \"dl4j\"";
        ComputationGraphConfiguration reference = ModelCompiler.configuration(
                GraphFixture.model(CUBE.formatted(dl4j, dl4j), dir), GraphFixture.IMAGES, 1);
        assertThat(layerOf(reference, "tokens")).isExactlyInstanceOf(PatchEmbedding3D.class);
        assertThat(layerOf(reference, "volume")).isExactlyInstanceOf(Unpatch3D.class);
    }

    /** recompute: the kernels that cut their rows again, marked in the summary; not on DiT's final layer. */
    @Test
    void recomputeOnTheKernelsAndNotOnAConditionedUnpatch() {
        String on = ", \"recompute\": true";
        ModelCheck.Checked c = built(CUBE.formatted(on, on), dir);
        assertThat(row(c.summary(), "tokens").type()).isEqualTo("patches3d (recompute)");
        assertThat(row(c.summary(), "volume").type()).isEqualTo("unpatch3d (recompute)");
        ComputationGraphConfiguration conf =
                ModelCompiler.configuration(GraphFixture.model(CUBE.formatted(on, on), dir), GraphFixture.IMAGES, 1);
        assertThat(((PatchEmbedding3DKernel) layerOf(conf, "tokens")).isRecompute())
                .isTrue();
        assertThat(((Unpatch3DKernel) layerOf(conf, "volume")).isRecompute()).isTrue();
        assertThat(row(built(CUBE.formatted("", ""), dir).summary(), "tokens").type())
                .isEqualTo("patches3d");
        ConfigProblem conditioned = firstError("""
                {"type": "reshape", "shape": [1, 4, 4, 4]},
                {"name": "tokens", "type": "patches3d", "size": 2, "units": 6},
                {"name": "pooled", "type": "globalPool"},
                {"name": "cond", "type": "dense", "units": 5},
                {"name": "volume", "type": "unpatch3d", "inputs": "tokens", "size": 2, "channels": 3,
                 "condition": "cond", "recompute": true},
                {"type": "globalPool"}""", dir);
        assertThat(conditioned.path()).isEqualTo("model.layers[4].recompute");
        assertThat(conditioned.message()).contains("'volume'").contains("without a condition");
    }

    private static Object layerOf(ComputationGraphConfiguration conf, String node) {
        return ((LayerVertex) conf.getVertices().get(node)).getLayerConf().getLayer();
    }

    @Test
    void aSizeThatDoesNotDivideTheVolumeIsALocatedError() {
        ConfigProblem p =
                firstError(CUBE.formatted("", "").replace("\"size\": 2, \"units\"", "\"size\": 3, \"units\""), dir);
        assertThat(p.path()).isEqualTo("model.layers[1]");
        assertThat(p.message()).contains("'tokens'").contains("3 does not divide the volume's 4×4×4");
    }

    @Test
    void tokensThatAreNotACubeNeedAGrid() {
        ConfigProblem missing = firstError(FLAT.formatted(""), dir);
        assertThat(missing.path()).isEqualTo("model.layers[2]");
        assertThat(missing.message())
                .contains("'volume'")
                .contains("4 tokens is not a cube")
                .contains("\"grid\"");
        ConfigProblem wrong = firstError(FLAT.formatted(", \"grid\": [2, 2, 2]"), dir);
        assertThat(wrong.path()).isEqualTo("model.layers[2]");
        assertThat(wrong.message()).contains("a grid of 2×2×2 holds 8 tokens, but the input has 4");
    }

    /** DiT's final layer: the projection's parameters, then a shift and a scale per feature from the condition. */
    @Test
    void aConditionedUnpatchIsTheFinalLayerOnTheOwnKernelOnly() {
        String conditioned = """
                {"type": "reshape", "shape": [1, 4, 4, 4]},
                {"name": "tokens", "type": "patches3d", "size": 2, "units": 6},
                {"name": "pooled", "type": "globalPool"},
                {"name": "cond", "type": "dense", "units": 5},
                {"name": "volume", "type": "unpatch3d", "inputs": "tokens", "size": 2, "channels": 3,
                 "condition": "cond"%s},
                {"type": "globalPool"}""";
        ModelCheck.Checked c = built(conditioned.formatted(""), dir);
        assertThat(shapeOf(c.summary(), "volume")).isEqualTo("[4, 4, 4, 3]");
        assertThat(row(c.summary(), "volume").parameters()).isEqualTo(6 * 24 + 24 + 5 * 12 + 12);
        ComputationGraphConfiguration own =
                ModelCompiler.configuration(GraphFixture.model(conditioned.formatted(""), dir), GraphFixture.IMAGES, 1);
        assertThat(layerOf(own, "volume")).isInstanceOf(ConditionedUnpatch3D.class);

        ConfigProblem dl4j = firstError(conditioned.formatted(", \"kernel\": \"dl4j\""), dir);
        assertThat(dl4j.path()).isEqualTo("model.layers[4]");
        assertThat(dl4j.message()).contains("'volume'").contains("reads a condition");
        ConfigProblem sequence = firstError(CUBE.formatted("", ", \"condition\": \"tokens\""), dir);
        assertThat(sequence.path()).isEqualTo("model.layers[2].condition");
        assertThat(sequence.message()).contains("one vector per sample");
    }

    @Test
    void anImageIsNotAVolume() {
        ConfigProblem p = firstError("""
                {"name": "tokens", "type": "patches3d", "size": 2, "units": 6},
                {"type": "globalPool"}""", dir);
        assertThat(p.path()).isEqualTo("model.layers[0]");
        assertThat(p.message()).contains("takes a volume but gets an image 8×8×1");
    }
}
