package org.traindeck.engine.train.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * The histogram read straight from a layer's arrays equals the one of the same values gathered into one array of
 * doubles, as the layer figures took them before (each array cast to double, flattened in 'c' order, concatenated):
 * for views at an offset into one flat buffer, 'f'-ordered views, strided views, double arrays and one-value arrays.
 */
class HistogramDataTest {

    /** The values as the figures gathered them before streaming: every array cast, flattened and concatenated. */
    private static double[] gathered(List<INDArray> arrays) {
        List<Double> out = new ArrayList<>();
        for (INDArray a : arrays) {
            for (double v : a.castTo(DataType.DOUBLE).reshape(a.length()).toDoubleVector()) {
                out.add(v);
            }
        }
        return out.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /** Every figure of a histogram bit for bit (a NaN equal to a NaN), in one list. */
    private static List<Long> bits(HistogramData h) {
        List<Long> out = new ArrayList<>(List.of(
                h.count(),
                Double.doubleToLongBits(h.min()),
                Double.doubleToLongBits(h.max()),
                Double.doubleToLongBits(h.sum()),
                Double.doubleToLongBits(h.sumSquares())));
        for (double v : h.limits()) {
            out.add(Double.doubleToLongBits(v));
        }
        for (double v : h.counts()) {
            out.add(Double.doubleToLongBits(v));
        }
        return out;
    }

    private static void assertSame(List<INDArray> arrays, double scale) {
        HistogramData expected = HistogramData.of(gathered(arrays), scale);
        HistogramData streamed = HistogramData.of(arrays, scale);
        assertThat(bits(streamed)).isEqualTo(bits(expected));
    }

    @Test
    void viewsIntoOneFlatBufferInEitherOrderGiveTheGatheredValuesHistogram() {
        Nd4j.getRandom().setSeed(3);
        INDArray flat = Nd4j.randn(DataType.FLOAT, 1, 1000);
        INDArray cView =
                flat.get(NDArrayIndex.point(0), NDArrayIndex.interval(100, 400)).reshape('c', 20, 15);
        INDArray fView =
                flat.get(NDArrayIndex.point(0), NDArrayIndex.interval(400, 700)).reshape('f', 30, 10);
        INDArray bias = flat.get(NDArrayIndex.point(0), NDArrayIndex.interval(700, 712));
        INDArray strided = Nd4j.randn(DataType.FLOAT, 8, 6).get(NDArrayIndex.all(), NDArrayIndex.interval(1, 5));
        assertThat(fView.ordering()).isEqualTo('f');
        assertSame(List.of(cView, fView, bias, strided), 1);
        assertSame(List.of(fView), 1.0 / 64);
        assertSame(List.of(strided, bias), -3);
    }

    @Test
    void doubleArraysOneValueArraysAndEmptyListsAreTakenAsBefore() {
        Nd4j.getRandom().setSeed(5);
        INDArray doubles = Nd4j.randn(DataType.DOUBLE, 7, 3).transpose();
        assertSame(List.of(doubles), 0.5);
        assertSame(List.of(Nd4j.scalar(DataType.FLOAT, 2.5f)), 1);
        assertSame(List.of(Nd4j.ones(DataType.FLOAT, 4, 4)), 1);
        assertSame(List.of(), 1);
        INDArray withNaN = Nd4j.randn(DataType.FLOAT, 10);
        withNaN.putScalar(3, Float.NaN);
        assertSame(List.of(withNaN), 1);
    }

    @Test
    void aNetworksParametersAndGradientsGiveTheGatheredValuesHistogram() {
        MultiLayerNetwork net = new MultiLayerNetwork(new NeuralNetConfiguration.Builder()
                .seed(7)
                .list()
                .layer(new ConvolutionLayer.Builder(3, 3).nOut(4).build())
                .layer(new DenseLayer.Builder().nOut(16).build())
                .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT)
                        .nOut(3)
                        .activation(Activation.SOFTMAX)
                        .build())
                .setInputType(InputType.convolutional(8, 8, 1))
                .build());
        net.init();
        net.setInput(Nd4j.rand(DataType.FLOAT, 5, 1, 8, 8));
        net.setLabels(Nd4j.eye(3).getRows(0, 1, 2, 0, 1));
        net.computeGradientAndScore();
        for (int i = 0; i < net.getnLayers(); i++) {
            Map<String, INDArray> params = net.getLayer(i).paramTable();
            List<INDArray> weights = new ArrayList<>(params.values());
            List<INDArray> grads = new ArrayList<>();
            for (String p : params.keySet()) {
                grads.add(net.gradient().getGradientFor(i + "_" + p));
            }
            assertThat(weights).isNotEmpty();
            assertSame(weights, 1);
            assertSame(grads, 1.0 / 5);
        }
    }
}
