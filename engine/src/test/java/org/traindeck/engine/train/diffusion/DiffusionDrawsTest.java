package org.traindeck.engine.train.diffusion;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.SplittableRandom;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.CnnLossLayer;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.lossfunctions.LossFunctions;
import org.traindeck.engine.config.DiffusionConfig;
import org.traindeck.engine.data.Dataset;
import org.traindeck.engine.data.FloatSamples;
import org.traindeck.engine.data.InputArray;
import org.traindeck.engine.data.SampleShape;
import org.traindeck.engine.train.batch.BatchMaker;

/**
 * The diffusion draws of a batch: x_t, t and the target follow the formulas for each prediction; an example gets the
 * same timestep and noise at its position in the epoch whatever the batch it falls in; validation's draws depend on
 * the example alone; and min-SNR weights enter DL4J's loss exactly, example by example.
 */
class DiffusionDrawsTest {

    private static final int N = 12;
    private static final SampleShape.Image SHAPE = new SampleShape.Image(2, 3, 3);

    private static Dataset data(String prediction, String weighting) {
        SplittableRandom r = new SplittableRandom(1);
        float[] x = new float[N * SHAPE.values()];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) r.nextDouble(-1, 1);
        }
        FloatSamples samples = new FloatSamples(x, SHAPE.values());
        List<InputArray> inputs = List.of(
                new InputArray(DiffusionConfig.NOISY, samples, SHAPE, 0),
                new InputArray(
                        DiffusionConfig.TIMESTEP, new FloatSamples(new float[N], 1), new SampleShape.Flat(1), 0));
        return Dataset.diffusion(inputs, samples, 2, new DiffusionConfig(50, "linear", prediction, weighting));
    }

    private static float[] floats(INDArray a) {
        return a.castTo(DataType.FLOAT).dup('c').data().asFloat();
    }

    @Test
    void theNoisedSampleAndTargetFollowTheFormulas() {
        for (String prediction : List.of("epsilon", "v", "x0")) {
            Dataset data = data(prediction, "none");
            NoiseSchedule schedule = NoiseSchedule.of(data.diffusion());
            int[] order = BatchMaker.epochOrder(N, true, 7, 0, 2);
            BatchMaker.Batch b = new BatchMaker(data, true, null, DataType.FLOAT).batch(order, 0, N, 7, 0, 2, true);
            float[] xt = floats(b.inputs()[0]);
            float[] t = floats(b.inputs()[1]);
            float[] target = floats(b.labels());
            int d = SHAPE.values();
            float[] x0 = new float[d];
            for (int i = 0; i < N; i++) {
                data.copyTargets(order[i], x0, 0);
                double a = schedule.alphaBar((int) t[i]);
                for (int j = 0; j < d; j++) {
                    double out = target[i * d + j];
                    // whatever is predicted, the clean sample it implies is the true one
                    double implied = Prediction.of(prediction).x0(out, xt[i * d + j], a);
                    assertThat(implied).as("%s, example %d", prediction, i).isCloseTo(x0[j], within(1e-4));
                }
            }
            assertThat(b.labelMask()).isNull();
        }
    }

    @Test
    void anExampleGetsTheSameDrawsWhateverItsBatch() {
        Dataset data = data("epsilon", "minSnr");
        BatchMaker maker = new BatchMaker(data, true, null, DataType.FLOAT);
        int[] order = BatchMaker.epochOrder(N, true, 7, 1, 3);
        BatchMaker.Batch whole = maker.batch(order, 0, N, 7, 1, 3, true);
        BatchMaker.Batch third = maker.batch(order, 2, 4, 7, 1, 3, true);
        int d = SHAPE.values();
        float[] a = floats(whole.inputs()[0]);
        float[] b = floats(third.inputs()[0]);
        for (int j = 0; j < 4 * d; j++) {
            assertThat(b[j]).isEqualTo(a[8 * d + j]);
        }
        assertThat(floats(third.inputs()[1])[1]).isEqualTo(floats(whole.inputs()[1])[9]);
        assertThat(floats(third.labelMask())[d]).isEqualTo(floats(whole.labelMask())[9 * d]);
        BatchMaker.Batch otherEpoch = maker.batch(order, 0, N, 7, 1, 4, true);
        assertThat(floats(otherEpoch.inputs()[1])).isNotEqualTo(floats(whole.inputs()[1]));
    }

    @Test
    void validationDrawsDependOnTheExampleAlone() {
        Dataset data = data("v", "minSnr");
        BatchMaker maker = new BatchMaker(data, true, null, DataType.FLOAT);
        int[] order = BatchMaker.epochOrder(N, false, 0, 0, 0);
        BatchMaker.Batch first = maker.batch(order, 0, N, 1, 0, 0, false);
        BatchMaker.Batch later = maker.batch(order, 0, N, 99, 2, 17, false);
        assertThat(floats(later.inputs()[0])).containsExactly(floats(first.inputs()[0]));
        assertThat(floats(later.labels())).containsExactly(floats(first.labels()));
        assertThat(first.labelMask())
                .as("validation reports the plain squared error")
                .isNull();
    }

    @Test
    void minSnrWeightsEnterTheLossExampleByExample() {
        Dataset data = data("epsilon", "minSnr");
        int[] order = BatchMaker.epochOrder(N, true, 7, 0, 0);
        BatchMaker.Batch b = new BatchMaker(data, true, null, DataType.FLOAT).batch(order, 0, N, 7, 0, 0, true);
        ComputationGraph net = new ComputationGraph(new NeuralNetConfiguration.Builder()
                .seed(1)
                .dataType(DataType.FLOAT)
                .graphBuilder()
                .addInputs("noisy")
                .setInputTypes(InputType.convolutional(3, 3, 2))
                .addLayer(
                        "conv",
                        new ConvolutionLayer.Builder(1, 1)
                                .nOut(2)
                                .activation(Activation.TANH)
                                .build(),
                        "noisy")
                .addLayer(
                        "out",
                        new CnnLossLayer.Builder(LossFunctions.LossFunction.MSE)
                                .activation(Activation.IDENTITY)
                                .build(),
                        "conv")
                .setOutputs("out")
                .build());
        net.init();
        INDArray out = net.outputSingle(false, b.inputs()[0]);
        float[] y = floats(b.labels());
        float[] w = floats(b.labelMask());
        float[] o = floats(out);
        // Σ w·(y − o)² is the plain loss of the labels o + √w·(y − o)
        float[] equivalent = new float[y.length];
        for (int j = 0; j < y.length; j++) {
            equivalent[j] = (float) (o[j] + Math.sqrt(w[j]) * (y[j] - o[j]));
        }
        net.setInputs(b.inputs()[0]);
        net.setLabels(b.labels());
        net.setLayerMaskArrays(null, new INDArray[] {b.labelMask()});
        net.computeGradientAndScore();
        double weighted = net.score();
        net.clearLayerMaskArrays();
        net.setLabels(Nd4j.create(equivalent, b.labels().shape()));
        net.computeGradientAndScore();
        assertThat(weighted).isCloseTo(net.score(), within(1e-5 * net.score()));
        float least = 1;
        for (float v : w) {
            least = Math.min(least, v);
        }
        assertThat(w).as("high-noise examples weigh 1, low-noise ones less").contains(1f);
        assertThat(least).isLessThan(0.5f);
    }
}
