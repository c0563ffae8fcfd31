package org.traindeck.engine.model.kernels.dense;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.traindeck.engine.model.kernels.LayerGradients.checkSlopes;
import static org.traindeck.engine.model.kernels.dense.DenseKernelTest.assertRelativelyClose;
import static org.traindeck.engine.model.kernels.dense.DenseKernelTest.instantiate;

import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.api.layers.IOutputLayer;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.weights.WeightInit;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.junit.jupiter.api.Test;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;
import org.traindeck.engine.model.kernels.LayerGradients.Tolerance;

/**
 * The classifier head kernel against DL4J's OutputLayer with the same parameters: score, every parameter's gradient,
 * the input's gradient and the inference output, with and without a per-example mask, on row-major, column-major and
 * view inputs; and central finite differences.
 */
class SoftmaxOutputHeadTest {

    private static final Tolerance HEAD = new Tolerance(2e-3, 2e-2);

    private static OutputLayer reference(int in, int classes, boolean bias) {
        return reference(in, classes, bias, 0);
    }

    /** @param dropout the probability of dropping an input (0: none) */
    private static OutputLayer reference(int in, int classes, boolean bias, double dropout) {
        OutputLayer.Builder b = new OutputLayer.Builder(LossFunction.MCXENT)
                .activation(Activation.SOFTMAX)
                .nIn(in)
                .nOut(classes)
                .hasBias(bias)
                .weightInit(WeightInit.XAVIER);
        if (dropout > 0) {
            b.dropOut(1 - dropout); // DL4J takes the probability of keeping an input
        }
        return b.build();
    }

    private static INDArray oneHot(int n, int classes) {
        INDArray y = Nd4j.zeros(DataType.FLOAT, n, classes);
        for (int r = 0; r < n; r++) {
            y.putScalar(r, (r * 7 + 3) % classes, 1);
        }
        return y;
    }

    private record Result(double score, Gradient gradient, INDArray inputGradient, INDArray flat, INDArray output) {}

    private static Result run(Layer layer, INDArray x, INDArray y, INDArray mask) {
        LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
        layer.setInput(x, ws);
        ((IOutputLayer) layer).setLabels(y);
        layer.setMaskArray(mask);
        Nd4j.getRandom().setSeed(42);
        Pair<Gradient, INDArray> p = layer.backpropGradient(null, ws);
        INDArray dx = p.getSecond().dup();
        double score = ((IOutputLayer) layer).computeScore(0.25, true, ws);
        layer.setMaskArray(null);
        INDArray out = layer.activate(false, ws).dup();
        return new Result(score, p.getFirst(), dx, layer.getGradientsViewArray().dup(), out);
    }

    private static Layer compare(int in, int classes, boolean bias, INDArray x, INDArray y, INDArray mask) {
        return compare(reference(in, classes, bias), x, y, mask);
    }

    private static Layer compare(OutputLayer reference, INDArray x, INDArray y, INDArray mask) {
        Layer ref = instantiate(reference);
        Layer k = instantiate(new SoftmaxOutputHead((OutputLayer) reference.clone()));
        assertThat(k).isInstanceOf(SoftmaxOutputHeadLayer.class);
        assertThat(k.paramTable().keySet())
                .containsExactlyElementsOf(ref.paramTable().keySet());
        for (String p : ref.paramTable().keySet()) {
            assertThat(k.getParam(p).shape()).as(p).isEqualTo(ref.getParam(p).shape());
            assertThat(k.getParam(p).ordering()).as(p).isEqualTo(ref.getParam(p).ordering());
        }
        assertThat(k.params()).isEqualTo(ref.params());
        ref.params().assign(Nd4j.randn(DataType.FLOAT, ref.params().shape()));
        k.params().assign(ref.params());
        Result r = run(ref, x, y, mask);
        Result g = run(k, x, y, mask);
        assertThat(g.score()).isCloseTo(r.score(), within(1e-5 * Math.abs(r.score())));
        assertRelativelyClose(g.inputGradient(), r.inputGradient(), 1e-4, "input gradient");
        for (String p : ref.paramTable().keySet()) {
            assertRelativelyClose(
                    g.gradient().getGradientFor(p), r.gradient().getGradientFor(p), 1e-4, "gradient of " + p);
        }
        assertRelativelyClose(g.flat(), r.flat(), 1e-4, "flat gradient view");
        assertRelativelyClose(g.output(), r.output(), 1e-5, "inference output");
        return k;
    }

    @Test
    void matchesOutputLayer() {
        compare(6, 5, true, Nd4j.randn(DataType.FLOAT, 9, 6), oneHot(9, 5), null);
    }

    @Test
    void withoutBiasItHasOnlyWeightsAsOutputLayer() {
        Layer k = compare(6, 5, false, Nd4j.randn(DataType.FLOAT, 9, 6), oneHot(9, 5), null);
        assertThat(k.paramTable().keySet()).containsExactly("W");
    }

    @Test
    void columnMajorAndViewInputsAndSoftLabelsAsOutputLayer() {
        compare(
                6,
                4,
                true,
                Nd4j.randn(DataType.FLOAT, 7, 6).dup('f'),
                oneHot(7, 4).dup('f'),
                null);
        INDArray wide = Nd4j.randn(DataType.FLOAT, 7, 10);
        INDArray soft = Nd4j.rand(DataType.FLOAT, 7, 4);
        soft.diviColumnVector(soft.sum(true, 1));
        compare(6, 4, true, wide.getColumns(1, 2, 3, 4, 5, 6), soft, null);
        compare(
                6,
                4,
                true,
                wide.get(
                        org.nd4j.linalg.indexing.NDArrayIndex.all(),
                        org.nd4j.linalg.indexing.NDArrayIndex.interval(2, 8)),
                soft,
                null);
    }

    @Test
    void aPerExampleMaskLeavesOutTheMaskedExamplesAsOutputLayerDoes() {
        INDArray mask =
                Nd4j.createFromArray(new float[] {1, 0, 1, 1, 0, 1, 1, 1, 0}).reshape(9, 1);
        compare(6, 5, true, Nd4j.randn(DataType.FLOAT, 9, 6), oneHot(9, 5), mask);
    }

    @Test
    void inputDropoutDrawsAndBackpropagatesAsOutputLayer() {
        INDArray x = Nd4j.randn(DataType.FLOAT, 9, 6);
        compare(reference(6, 5, true, 0.4), x.dup(), oneHot(9, 5), null);
        // the draw did happen: the gradient differs from the one without dropout
        Layer plain = instantiate(new SoftmaxOutputHead(reference(6, 5, true)));
        Layer dropped = instantiate(new SoftmaxOutputHead(reference(6, 5, true, 0.4)));
        dropped.params().assign(plain.params());
        INDArray a = run(plain, x.dup(), oneHot(9, 5), null).flat();
        INDArray b = run(dropped, x.dup(), oneHot(9, 5), null).flat();
        assertThat(a).isNotEqualTo(b);
    }

    @Test
    void confidentWrongPredictionsAreClippedAsOutputLayerClipsThem() {
        // logits far apart: probabilities under DL4J's clipping epsilon (1e-10) for the labelled class
        compare(3, 4, true, Nd4j.randn(DataType.FLOAT, 5, 3).muli(40), oneHot(5, 4), null);
    }

    @Test
    void gradientsMatchFiniteDifferencesOfTheScore() {
        Layer k = instantiate(new SoftmaxOutputHead(reference(3, 4, true)));
        k.params().assign(Nd4j.randn(DataType.FLOAT, k.params().shape()));
        INDArray x = Nd4j.randn(DataType.FLOAT, 5, 3);
        INDArray y = oneHot(5, 4);
        INDArray mask = Nd4j.createFromArray(new float[] {1, 1, 0, 1, 1}).reshape(5, 1);
        Result g = run(k, x, y, mask);
        // the score is divided by the minibatch, the gradient is not (TrainDeck's step divides it)
        checkSlopes(k.params(), g.flat().div(5), () -> score(k, x, y, mask), HEAD, "parameter");
        checkSlopes(x, g.inputGradient().div(5), () -> score(k, x, y, mask), HEAD, "input");
    }

    private static double score(Layer k, INDArray x, INDArray y, INDArray mask) {
        LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
        k.setInput(x, ws);
        ((IOutputLayer) k).setLabels(y);
        k.setMaskArray(mask);
        return ((IOutputLayer) k).computeScore(0, true, ws);
    }

    @Test
    void float16NetworksGetDl4jsLayerWithTheSameParameters() {
        Layer half = instantiate(new SoftmaxOutputHead(reference(4, 3, true)), DataType.HALF);
        assertThat(half).isNotInstanceOf(SoftmaxOutputHeadLayer.class);
        assertThat(half.paramTable().keySet()).containsExactly("W", "b");
    }

    @Test
    void configurationSurvivesJsonAndEqualsTheLayerItStandsFor() {
        ComputationGraphConfiguration conf = graph(new SoftmaxOutputHead(reference(5, 3, true)));
        ComputationGraphConfiguration back = ComputationGraphConfiguration.fromJson(conf.toJson());
        assertThat(back).isEqualTo(conf);
        assertThat(back.getVertices().get("out").toString()).contains("SoftmaxOutputHead");
        ComputationGraphConfiguration plain = graph(reference(5, 3, true));
        assertThat(conf.toJson().replace(SoftmaxOutputHead.class.getName(), OutputLayer.class.getName()))
                .isEqualTo(plain.toJson());
    }

    private static ComputationGraphConfiguration graph(OutputLayer head) {
        return new NeuralNetConfiguration.Builder()
                .seed(1)
                .dataType(DataType.FLOAT)
                .graphBuilder()
                .addInputs("in")
                .setInputTypes(InputType.feedForward(5))
                .addLayer("out", head, "in")
                .setOutputs("out")
                .build();
    }

    @Test
    void computesSoftmaxWithCrossEntropyOnly() {
        assertThat(SoftmaxOutputHead.computes(reference(3, 2, true))).isTrue();
        OutputLayer mse = new OutputLayer.Builder(LossFunction.MSE)
                .activation(Activation.IDENTITY)
                .nIn(3)
                .nOut(2)
                .build();
        assertThat(SoftmaxOutputHead.computes(mse)).isFalse();
        OutputLayer sigmoid = new OutputLayer.Builder(LossFunction.MCXENT)
                .activation(Activation.SIGMOID)
                .nIn(3)
                .nOut(2)
                .build();
        assertThat(SoftmaxOutputHead.computes(sigmoid)).isFalse();
    }
}
