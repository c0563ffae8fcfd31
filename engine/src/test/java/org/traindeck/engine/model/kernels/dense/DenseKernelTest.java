package org.traindeck.engine.model.kernels.dense;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.traindeck.engine.model.kernels.LayerGradients.checkSlopes;
import static org.traindeck.engine.model.kernels.LayerGradients.forwardBackward;
import static org.traindeck.engine.model.kernels.LayerGradients.weightedOutput;

import java.util.List;
import java.util.Map;
import java.util.function.DoubleSupplier;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.recurrent.TimeDistributed;
import org.deeplearning4j.nn.gradient.Gradient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.traindeck.engine.model.kernels.LayerGradients.Tolerance;

/** The dense kernel against DL4J's DenseLayer with the same parameters: outputs, every gradient, finite differences. */
public class DenseKernelTest {

    enum Act {
        IDENTITY(Activation.IDENTITY),
        RELU(Activation.RELU),
        LEAKYRELU(Activation.LEAKYRELU),
        TANH(Activation.TANH),
        SIGMOID(Activation.SIGMOID),
        GELU(Activation.GELU);

        final Activation a;

        Act(Activation a) {
            this.a = a;
        }
    }

    /** The layer as DL4J instantiates it, with its parameters and gradients in flat views at an offset (as in a network). */
    public static Layer instantiate(org.deeplearning4j.nn.conf.layers.Layer layerConf) {
        return instantiate(layerConf, DataType.FLOAT);
    }

    public static Layer instantiate(org.deeplearning4j.nn.conf.layers.Layer layerConf, DataType type) {
        NeuralNetConfiguration conf = new NeuralNetConfiguration.Builder()
                .seed(3)
                .dataType(type)
                .layer(layerConf)
                .build();
        long n = conf.getLayer().initializer().numParams(conf);
        INDArray params = Nd4j.create(type, 1, n + 7)
                .get(NDArrayIndex.point(0), NDArrayIndex.interval(7, n + 7))
                .reshape(1, n);
        Layer layer = conf.getLayer().instantiate(conf, List.of(), 0, params, true, type);
        INDArray grads = Nd4j.create(type, 1, n + 5)
                .get(NDArrayIndex.point(0), NDArrayIndex.interval(5, n + 5))
                .reshape(1, n);
        layer.setBackpropGradientsViewArray(grads);
        return layer;
    }

    private static DenseKernel kernel(int in, int out, Activation a, boolean bias) {
        return new DenseKernel.Builder()
                .nIn(in)
                .nOut(out)
                .activation(a)
                .hasBias(bias)
                .build();
    }

    private static DenseLayer reference(int in, int out, Activation a, boolean bias) {
        return new DenseLayer.Builder()
                .nIn(in)
                .nOut(out)
                .activation(a)
                .hasBias(bias)
                .build();
    }

    public static void assertRelativelyClose(INDArray actual, INDArray expected, double tolerance, String what) {
        assertThat(actual.shape()).as(what + " shape").isEqualTo(expected.shape());
        double scale = Math.max(expected.norm2Number().doubleValue(), 1e-12);
        double diff = actual.castTo(DataType.DOUBLE)
                .sub(expected.castTo(DataType.DOUBLE))
                .norm2Number()
                .doubleValue();
        assertThat(diff / scale).as(what + ": |actual − expected| / |expected|").isLessThan(tolerance);
    }

    @ParameterizedTest
    @EnumSource(Act.class)
    void rowsMatchDenseLayerInOutputEveryParameterGradientAndInputGradient(Act act) {
        compareRows(kernel(6, 5, act.a, true), reference(6, 5, act.a, true), Nd4j.randn(DataType.FLOAT, 9, 6), 9, 5);
    }

    @Test
    void withoutBiasItHasOnlyWeightsAsDenseLayer() {
        Layer k = compareRows(
                kernel(4, 3, Activation.TANH, false),
                reference(4, 3, Activation.TANH, false),
                Nd4j.randn(DataType.FLOAT, 7, 4),
                7,
                3);
        assertThat(k.paramTable().keySet()).containsExactly("W");
    }

    @Test
    void withoutInputGradientTheParameterGradientsAreTheSameAndTheInputGetsZeros() {
        DenseKernel skipping = kernel(6, 5, Activation.RELU, true);
        skipping.setInputGradient(false);
        Layer k = instantiate(skipping);
        Layer full = instantiate(kernel(6, 5, Activation.RELU, true));
        k.params().assign(full.params());
        INDArray x = Nd4j.randn(DataType.FLOAT, 4, 6);
        INDArray eps = Nd4j.randn(DataType.FLOAT, 4, 5);
        INDArray[] out = new INDArray[1];
        forwardBackward(full, x, eps, out);
        Pair<Gradient, INDArray> g = forwardBackward(k, x, eps, out);
        assertThat(g.getSecond().sumNumber().doubleValue()).isZero();
        assertThat(g.getSecond().shape()).isEqualTo(new long[] {4, 6});
        assertThat(k.getGradientsViewArray().equalsWithEps(full.getGradientsViewArray(), 0))
                .isTrue();
    }

    @Test
    void aColumnMajorInputIsReadCorrectly() {
        compareRows(
                kernel(6, 5, Activation.RELU, true),
                reference(6, 5, Activation.RELU, true),
                Nd4j.randn(DataType.FLOAT, 9, 6).dup('f'),
                9,
                5);
    }

    private static Layer compareRows(DenseKernel kernelConf, DenseLayer refConf, INDArray x, int n, int out) {
        Layer ref = instantiate(refConf);
        Layer k = instantiate(kernelConf);
        assertSameParameterLayout(k, ref);
        k.params().assign(ref.params());
        INDArray eps = Nd4j.randn(DataType.FLOAT, n, out);
        INDArray[] refOut = new INDArray[1];
        INDArray[] kOut = new INDArray[1];
        Pair<Gradient, INDArray> r = forwardBackward(ref, x, eps, refOut);
        Pair<Gradient, INDArray> g = forwardBackward(k, x, eps, kOut);
        assertRelativelyClose(kOut[0], refOut[0], 1e-5, "output");
        assertRelativelyClose(g.getSecond(), r.getSecond(), 1e-4, "input gradient");
        for (String p : ref.paramTable().keySet()) {
            assertRelativelyClose(
                    g.getFirst().getGradientFor(p), r.getFirst().getGradientFor(p), 1e-4, "gradient of " + p);
            assertRelativelyClose(k.getGradientsViewArray(), ref.getGradientsViewArray(), 1e-4, "flat gradient view");
        }
        return k;
    }

    /** Checkpoints hold the flat parameter vector: the kernel must lay it out exactly as DenseLayer. */
    private static void assertSameParameterLayout(Layer k, Layer ref) {
        assertThat(k.paramTable().keySet())
                .containsExactlyElementsOf(ref.paramTable().keySet());
        for (Map.Entry<String, INDArray> e : ref.paramTable().entrySet()) {
            INDArray mine = k.paramTable().get(e.getKey());
            assertThat(mine.shape())
                    .as("shape of " + e.getKey())
                    .isEqualTo(e.getValue().shape());
            assertThat(mine.ordering())
                    .as("ordering of " + e.getKey())
                    .isEqualTo(e.getValue().ordering());
        }
        assertThat(k.numParams()).isEqualTo(ref.numParams());
        // same initialisation from the same seed, element by element in the flat vector
        assertThat(k.params().equalsWithEps(ref.params(), 0)).isTrue();
    }

    @ParameterizedTest
    @EnumSource(
            value = Act.class,
            names = {"RELU", "GELU"})
    void aSequenceMatchesTimeDistributedDenseLayer(Act act) {
        Layer ref = instantiate(new TimeDistributed(reference(5, 4, act.a, true), RNNFormat.NCW));
        Layer k = instantiate(kernel(5, 4, act.a, true));
        assertSameParameterLayout(k, ref);
        k.params().assign(ref.params());
        INDArray x = Nd4j.randn(DataType.FLOAT, 3, 5, 6);
        INDArray eps = Nd4j.randn(DataType.FLOAT, 3, 4, 6);
        INDArray[] refOut = new INDArray[1];
        INDArray[] kOut = new INDArray[1];
        Pair<Gradient, INDArray> r = forwardBackward(ref, x, eps, refOut);
        Pair<Gradient, INDArray> g = forwardBackward(k, x, eps, kOut);
        assertRelativelyClose(kOut[0], refOut[0], 1e-5, "output");
        assertRelativelyClose(g.getSecond(), r.getSecond(), 1e-4, "input gradient");
        assertRelativelyClose(k.getGradientsViewArray(), ref.getGradientsViewArray(), 1e-4, "parameter gradients");
    }

    /**
     * A masked step gives zero and passes no gradient. Not compared with TimeDistributed(DenseLayer): M2.1 flattens the
     * mask in 'f' order but the steps in 'c' order, so it masks other steps than the mask says (seen here: [[1,1,0,0],
     * [1,1,1,0]] zeroed sample 1's steps 0, 2 and 3).
     */
    @Test
    void aSequenceMaskZeroesTheMaskedStepsAndTheirGradient() {
        Layer k = instantiate(kernel(3, 2, Activation.TANH, true));
        Layer plain = instantiate(kernel(3, 2, Activation.TANH, true));
        plain.params().assign(k.params());
        INDArray mask = Nd4j.createFromArray(new float[][] {{1, 1, 0, 0}, {1, 1, 1, 0}});
        INDArray perStep = mask.reshape(2, 1, 4);
        INDArray x = Nd4j.randn(DataType.FLOAT, 2, 3, 4);
        INDArray eps = Nd4j.randn(DataType.FLOAT, 2, 2, 4);
        k.setMaskArray(mask);
        INDArray[] kOut = new INDArray[1];
        INDArray[] plainOut = new INDArray[1];
        Pair<Gradient, INDArray> g = forwardBackward(k, x, eps, kOut);
        Pair<Gradient, INDArray> p = forwardBackward(plain, x, eps.mul(perStep.broadcast(2, 2, 4)), plainOut);
        assertRelativelyClose(kOut[0], plainOut[0].mul(perStep.broadcast(2, 2, 4)), 1e-6, "masked output");
        assertRelativelyClose(g.getSecond(), p.getSecond(), 1e-6, "input gradient");
        assertRelativelyClose(k.getGradientsViewArray(), plain.getGradientsViewArray(), 1e-6, "parameter gradients");
    }

    /** Central differences of L = Σ eps·out, in double arithmetic over the float layer (step 1e-2, smooth tanh). */
    @Test
    void gradientsMatchFiniteDifferences() {
        Layer k = instantiate(kernel(4, 3, Activation.TANH, true));
        k.params().muli(0.5);
        INDArray x = Nd4j.randn(DataType.FLOAT, 5, 4);
        INDArray eps = Nd4j.randn(DataType.FLOAT, 5, 3);
        INDArray[] out = new INDArray[1];
        Pair<Gradient, INDArray> g = forwardBackward(k, x, eps, out);
        INDArray analytic = k.getGradientsViewArray().dup();
        DoubleSupplier loss = () -> weightedOutput(k, x, eps, false);
        Tolerance tolerance = new Tolerance(2e-3, 1e-2);
        checkSlopes(k.params(), analytic, loss, tolerance, "parameter");
        checkSlopes(x, g.getSecond(), loss, tolerance, "input");
    }

    /** Float16 networks (a stage's "precision": "float16") compute with DL4J's dense math: same results as TimeDistributed. */
    @Test
    void inAFloat16NetworkASequenceMatchesTimeDistributedDenseLayer() {
        Layer ref =
                instantiate(new TimeDistributed(reference(5, 4, Activation.TANH, true), RNNFormat.NCW), DataType.HALF);
        Layer k = instantiate(kernel(5, 4, Activation.TANH, true), DataType.HALF);
        k.params().assign(ref.params());
        INDArray x = Nd4j.randn(DataType.FLOAT, 3, 5, 6).castTo(DataType.HALF);
        INDArray eps = Nd4j.randn(DataType.FLOAT, 3, 4, 6).castTo(DataType.HALF);
        INDArray[] refOut = new INDArray[1];
        INDArray[] kOut = new INDArray[1];
        Pair<Gradient, INDArray> r = forwardBackward(ref, x, eps, refOut);
        Pair<Gradient, INDArray> g = forwardBackward(k, x, eps, kOut);
        assertRelativelyClose(kOut[0], refOut[0], 1e-3, "output");
        assertRelativelyClose(g.getSecond(), r.getSecond(), 1e-3, "input gradient");
        assertRelativelyClose(k.getGradientsViewArray(), ref.getGradientsViewArray(), 1e-3, "parameter gradients");
    }

    @Test
    void configurationSurvivesJson() {
        ComputationGraphConfiguration conf = new NeuralNetConfiguration.Builder()
                .seed(1)
                .dataType(DataType.FLOAT)
                .graphBuilder()
                .addInputs("in")
                .setInputTypes(InputType.recurrent(5))
                .addLayer(
                        "d",
                        new DenseKernel.Builder()
                                .nOut(7)
                                .activation(Activation.GELU)
                                .hasBias(false)
                                .build(),
                        "in")
                .addLayer(
                        "r",
                        new DenseKernel.Builder()
                                .nOut(2)
                                .activation(Activation.RELU)
                                .build(),
                        "d")
                .setOutputs("r")
                .build();
        ComputationGraphConfiguration back = ComputationGraphConfiguration.fromJson(conf.toJson());
        assertThat(back).isEqualTo(conf);
        assertThat(back.getVertices().get("d").toString()).contains("DenseKernel");
    }

    @Test
    void anActivationTheKernelDoesNotComputeIsRefusedWithTheWayOut() {
        assertThat(DenseKernel.supports(Activation.SOFTPLUS)).isFalse();
        assertThat(DenseKernel.supports(Activation.GELU)).isTrue();
        assertThatThrownBy(() -> kernel(3, 2, Activation.SOFTPLUS, true)).hasMessageContaining("DenseLayer");
    }
}
