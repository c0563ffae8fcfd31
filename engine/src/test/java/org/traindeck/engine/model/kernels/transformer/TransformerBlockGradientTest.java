package org.traindeck.engine.model.kernels.transformer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/** The fused block against the same blocks spelled out as layerNorm, attention and dense nodes (the reference). */
public class TransformerBlockGradientTest {

    private static final int MB = 3;
    private static final int LENGTH = 5;

    public static double relativeError(INDArray a, INDArray b) {
        double scale = Math.max(a.amaxNumber().doubleValue(), b.amaxNumber().doubleValue());
        return a.sub(b).amaxNumber().doubleValue() / Math.max(scale, 1e-12);
    }

    /** block1_norm1_gain: block1_norm1Gain (a spelled-out node's parameter as the fused block names it). */
    public static String fusedKey(String referenceKey) {
        String[] p = referenceKey.split("_");
        return p.length < 3
                ? referenceKey
                : p[0] + "_" + p[1] + Character.toUpperCase(p[2].charAt(0)) + p[2].substring(1);
    }

    public static Gradient gradients(ComputationGraph net, INDArray x, INDArray y) {
        net.setInputs(x);
        net.setLabels(y);
        net.computeGradientAndScore();
        Gradient g = net.gradient();
        for (Map.Entry<String, INDArray> e : g.gradientForVariable().entrySet()) {
            e.setValue(e.getValue().dup());
        }
        return g;
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void sameParameterLayoutOutputsAndGradientsAsTheSpelledOutBlocks(boolean causal) {
        ComputationGraph reference = BlockGraphs.reference(causal, LENGTH, 42);
        ComputationGraph fused = BlockGraphs.fused(causal, LENGTH, 42, 0, false);

        List<String> referenceKeys = new ArrayList<>(reference.paramTable().keySet());
        assertThat(new ArrayList<>(fused.paramTable().keySet()))
                .isEqualTo(referenceKeys.stream().map(k -> fusedKey(k)).toList());
        for (String key : referenceKeys) {
            INDArray mine = fused.paramTable().get(fusedKey(key));
            assertThat(mine.shape())
                    .as(key)
                    .isEqualTo(reference.paramTable().get(key).shape());
            if (mine.rank() > 1 && mine.size(0) > 1) {
                assertThat(mine.ordering())
                        .as(key)
                        .isEqualTo(reference.paramTable().get(key).ordering());
            }
        }
        // the same seed draws the same initial parameters in both layouts
        assertThat(fused.params()).isEqualTo(reference.params());

        // trained parameters, so that gains and biases are not 1 and 0
        Nd4j.getRandom().setSeed(7);
        reference
                .params()
                .addi(Nd4j.randn(DataType.FLOAT, reference.params().shape()).muli(0.1));
        fused.params().assign(reference.params());

        Nd4j.getRandom().setSeed(11);
        INDArray x = Nd4j.randn(DataType.FLOAT, MB, BlockGraphs.WIDTH, LENGTH);
        INDArray y = Nd4j.randn(DataType.FLOAT, MB, BlockGraphs.OUTPUTS, LENGTH);
        assertThat(relativeError(fused.outputSingle(x), reference.outputSingle(x)))
                .isLessThan(1e-5);

        Gradient ref = gradients(reference, x, y);
        Gradient own = gradients(fused, x, y);
        // the stem's gradients are the blocks' input gradient times the stem's input (W) and summed (b)
        for (String key : referenceKeys) {
            assertThat(relativeError(own.getGradientFor(fusedKey(key)), ref.getGradientFor(key)))
                    .as(key)
                    .isLessThan(1e-4);
        }
    }
}
