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
import org.deeplearning4j.nn.conf.RNNFormat;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.RnnOutputLayer;
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
 * The sequence head kernel against DL4J's RnnOutputLayer with the same parameters: score, every parameter's gradient,
 * the input's gradient and the inference output, with and without a per-step mask; and central finite differences.
 */
class SoftmaxSequenceHeadTest {

    private static final Tolerance HEAD = new Tolerance(2e-3, 2e-2);

    private static RnnOutputLayer reference(int in, int classes) {
        return new RnnOutputLayer.Builder(LossFunction.MCXENT)
                .activation(Activation.SOFTMAX)
                .nIn(in)
                .nOut(classes)
                .dataFormat(RNNFormat.NCW)
                .weightInit(WeightInit.XAVIER)
                .build();
    }

    private static INDArray oneHot(int mb, int classes, int t) {
        INDArray y = Nd4j.zeros(DataType.FLOAT, mb, classes, t);
        for (int b = 0; b < mb; b++) {
            for (int s = 0; s < t; s++) {
                y.putScalar(new long[] {b, (b * 7 + s * 3) % classes, s}, 1);
            }
        }
        return y;
    }

    private record Result(double score, Gradient gradient, INDArray inputGradient, INDArray flat, INDArray output) {}

    private static Result run(Layer layer, INDArray x, INDArray y, INDArray mask) {
        LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
        layer.setInput(x, ws);
        ((IOutputLayer) layer).setLabels(y);
        layer.setMaskArray(mask);
        Pair<Gradient, INDArray> p = layer.backpropGradient(null, ws);
        INDArray dx = p.getSecond().dup();
        double score = ((IOutputLayer) layer).computeScore(0.25, true, ws);
        layer.setMaskArray(null);
        INDArray out = layer.activate(false, ws).dup();
        return new Result(score, p.getFirst(), dx, layer.getGradientsViewArray().dup(), out);
    }

    private static void compare(int mb, int in, int classes, int t, INDArray mask) {
        Layer ref = instantiate(reference(in, classes));
        Layer k = instantiate(new SoftmaxSequenceHead(reference(in, classes)));
        assertThat(k).isInstanceOf(SoftmaxSequenceHeadLayer.class);
        assertThat(k.paramTable().keySet())
                .containsExactlyElementsOf(ref.paramTable().keySet());
        for (String p : ref.paramTable().keySet()) {
            assertThat(k.getParam(p).shape()).as(p).isEqualTo(ref.getParam(p).shape());
            assertThat(k.getParam(p).ordering()).as(p).isEqualTo(ref.getParam(p).ordering());
        }
        assertThat(k.params()).isEqualTo(ref.params());
        ref.params().assign(Nd4j.randn(DataType.FLOAT, ref.params().shape()));
        k.params().assign(ref.params());
        INDArray x = Nd4j.randn(DataType.FLOAT, mb, in, t);
        INDArray y = oneHot(mb, classes, t);
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
    }

    @Test
    void matchesRnnOutputLayer() {
        compare(3, 6, 5, 4, null);
    }

    @Test
    void aPerStepMaskLeavesOutTheMaskedStepsAsRnnOutputLayerDoes() {
        INDArray mask = Nd4j.createFromArray(new float[][] {{1, 1, 0, 0}, {1, 1, 1, 1}, {0, 1, 1, 0}});
        compare(3, 6, 5, 4, mask);
    }

    @Test
    void gradientsMatchFiniteDifferencesOfTheScore() {
        Layer k = instantiate(new SoftmaxSequenceHead(reference(3, 4)));
        k.params().assign(Nd4j.randn(DataType.FLOAT, k.params().shape()));
        INDArray x = Nd4j.randn(DataType.FLOAT, 2, 3, 3);
        INDArray y = oneHot(2, 4, 3);
        INDArray mask = Nd4j.createFromArray(new float[][] {{1, 1, 0}, {1, 0, 1}});
        Result g = run(k, x, y, mask);
        // the score is divided by the minibatch, the gradient is not (TrainDeck's step divides it)
        checkSlopes(k.params(), g.flat().div(2), () -> score(k, x, y, mask), HEAD, "parameter");
        checkSlopes(x, g.inputGradient().div(2), () -> score(k, x, y, mask), HEAD, "input");
    }

    private static double score(Layer k, INDArray x, INDArray y, INDArray mask) {
        LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
        k.setInput(x, ws);
        ((IOutputLayer) k).setLabels(y);
        k.setMaskArray(mask);
        return ((IOutputLayer) k).computeScore(0, true, ws);
    }

    @Test
    void configurationSurvivesJsonAndEqualsTheLayerItStandsFor() {
        ComputationGraphConfiguration conf = new NeuralNetConfiguration.Builder()
                .seed(1)
                .dataType(DataType.FLOAT)
                .graphBuilder()
                .addInputs("in")
                .setInputTypes(InputType.recurrent(5, 4))
                .addLayer("out", new SoftmaxSequenceHead(reference(5, 3)), "in")
                .setOutputs("out")
                .build();
        ComputationGraphConfiguration back = ComputationGraphConfiguration.fromJson(conf.toJson());
        assertThat(back).isEqualTo(conf);
        assertThat(back.getVertices().get("out").toString()).contains("SoftmaxSequenceHead");
        ComputationGraphConfiguration plain = new NeuralNetConfiguration.Builder()
                .seed(1)
                .dataType(DataType.FLOAT)
                .graphBuilder()
                .addInputs("in")
                .setInputTypes(InputType.recurrent(5, 4))
                .addLayer("out", reference(5, 3), "in")
                .setOutputs("out")
                .build();
        assertThat(conf.toJson().replace(SoftmaxSequenceHead.class.getName(), RnnOutputLayer.class.getName()))
                .isEqualTo(plain.toJson());
    }
}
