package org.traindeck.engine.model.kernels.conv;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.lossfunctions.LossFunctions;
import org.traindeck.engine.parallel.BatchStatsGroup;

/**
 * One synchronized step by hand: two replicas of a conv + BatchNorm + dense + BatchNorm network, each on half of a
 * batch, exchange through a {@link BatchStatsGroup}; their summed gradient views (gradients and running-statistics
 * updates) equal DL4J's BatchNorm on the whole batch.
 */
class SyncBatchNormLayerTest {

    private static ComputationGraphConfiguration conf() {
        return conf(DataType.FLOAT);
    }

    private static ComputationGraphConfiguration conf(DataType type) {
        return new NeuralNetConfiguration.Builder()
                .seed(3)
                .dataType(type)
                .updater(new Adam(1e-3))
                .graphBuilder()
                .addInputs("in")
                .addLayer(
                        "conv",
                        new ConvolutionLayer.Builder(3, 3)
                                .nOut(4)
                                .convolutionMode(ConvolutionMode.Same)
                                .activation(Activation.IDENTITY)
                                .build(),
                        "in")
                .addLayer("bn0", new BatchNormalization.Builder().build(), "conv")
                .addLayer(
                        "dense",
                        new DenseLayer.Builder()
                                .nOut(6)
                                .activation(Activation.TANH)
                                .build(),
                        "bn0")
                .addLayer("bn1", new BatchNormalization.Builder().decay(0.8).build(), "dense")
                .addLayer(
                        "out",
                        new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT)
                                .nOut(3)
                                .activation(Activation.SOFTMAX)
                                .build(),
                        "bn1")
                .setOutputs("out")
                .setInputTypes(InputType.convolutional(5, 5, 2))
                .build();
    }

    private static ComputationGraphConfiguration synced() {
        ComputationGraphConfiguration c = conf();
        c.getVertices().values().forEach(v -> {
            if (v instanceof LayerVertex l && l.getLayerConf().getLayer() instanceof BatchNormalization bn) {
                l.getLayerConf().setLayer(SyncBatchNorm.of(bn));
            }
        });
        return c;
    }

    @Test
    void theSynchronizedConfigurationRoundTripsThroughDl4jsJsonAndHasBatchNormsParameters() {
        ComputationGraphConfiguration c = synced();
        ComputationGraphConfiguration back = ComputationGraphConfiguration.fromJson(c.toJson());
        assertThat(back).isEqualTo(c);
        assertThat(((LayerVertex) back.getVertices().get("bn1")).getLayerConf().getLayer())
                .isInstanceOf(SyncBatchNorm.class)
                .satisfies(l -> assertThat(((SyncBatchNorm) l).getDecay()).isEqualTo(0.8));
        // a plain and a synchronized BatchNorm are different layers, either way round
        assertThat(conf()).isNotEqualTo(c);
        assertThat(c).isNotEqualTo(conf());
        ComputationGraph plain = new ComputationGraph(conf());
        plain.init();
        ComputationGraph sync = new ComputationGraph(c);
        sync.init();
        assertThat(sync.getLayer("bn0")).isInstanceOf(SyncBatchNormLayer.class);
        assertThat(sync.paramTable().keySet())
                .containsExactlyElementsOf(plain.paramTable().keySet());
        assertThat(sync.params().equalsWithEps(plain.params(), 0)).isTrue();
    }

    private static INDArray gradient(ComputationGraph net, INDArray x, INDArray y) {
        net.setInputs(x);
        net.setLabels(y);
        net.computeGradientAndScore();
        return net.getGradientsViewArray().dup();
    }

    @Test
    void twoReplicasOnHalvesGiveTheGradientOfTheWholeBatch() throws Exception {
        Nd4j.getRandom().setSeed(7);
        INDArray x = Nd4j.rand(DataType.FLOAT, 12, 2, 5, 5).muli(3).addi(1);
        INDArray y = Nd4j.zeros(DataType.FLOAT, 12, 3);
        for (int i = 0; i < 12; i++) {
            y.putScalar(i, i % 3, 1);
        }
        ComputationGraph whole = new ComputationGraph(conf());
        whole.init();
        whole.initGradientsView();
        INDArray expected = gradient(whole, x, y);
        ComputationGraph exact = new ComputationGraph(conf(DataType.DOUBLE));
        exact.init(whole.params().castTo(DataType.DOUBLE), true);
        exact.initGradientsView();
        double[] ex = gradient(exact, x.castTo(DataType.DOUBLE), y.castTo(DataType.DOUBLE))
                .toDoubleVector();

        BatchStatsGroup group = new BatchStatsGroup(2, Duration.ofSeconds(30));
        List<ComputationGraph> replicas = new ArrayList<>();
        for (int w = 0; w < 2; w++) {
            ComputationGraph r = new ComputationGraph(synced());
            r.init(whole.params().dup(), false);
            r.initGradientsView();
            for (var layer : r.getLayers()) {
                if (layer instanceof SyncBatchNormLayer s) {
                    s.exchange(group.member(w));
                }
            }
            replicas.add(r);
        }
        group.beginStep(new int[] {1, 1});
        CompletableFuture<INDArray> second = CompletableFuture.supplyAsync(() ->
                gradient(replicas.get(1), x.get(NDArrayIndex.interval(7, 12)), y.get(NDArrayIndex.interval(7, 12))));
        INDArray first =
                gradient(replicas.get(0), x.get(NDArrayIndex.interval(0, 7)), y.get(NDArrayIndex.interval(0, 7)));
        INDArray summed = first.add(second.get());
        group.endStep();

        // gradients sum over the replicas; the running-statistics updates are each the whole batch's (the step averages
        // them)
        INDArray stats = Nd4j.zeros(DataType.FLOAT, expected.shape());
        long offset = 0;
        for (var layer : whole.getLayers()) {
            for (var e : layer.paramTable().entrySet()) {
                long n = e.getValue().length();
                if (layer instanceof org.deeplearning4j.nn.layers.normalization.BatchNormalization
                        && (e.getKey().equals("mean") || e.getKey().equals("log10stdev"))) {
                    stats.get(NDArrayIndex.point(0), NDArrayIndex.interval(offset, offset + n))
                            .assign(1);
                }
                offset += n;
            }
        }
        INDArray actual = summed.mul(stats.rsub(1)).addi(summed.mul(stats).divi(2));
        double[] e = expected.toDoubleVector();
        double[] a = actual.toDoubleVector();
        assertThat(a).hasSameSizeAs(e);
        // against the same network in float64: the synchronized gradient is as close as DL4J's own float32 one on the
        // whole batch
        double syncError = relativeError(a, ex);
        double dl4jError = relativeError(e, ex);
        assertThat(syncError)
                .as("relative L2 error of the synchronized gradient (DL4J's float32 on the whole batch: %s)", dl4jError)
                .isLessThan(Math.max(3 * dl4jError, 1e-6));
    }

    private static double relativeError(double[] a, double[] exact) {
        double diff = 0;
        double norm = 0;
        for (int i = 0; i < a.length; i++) {
            diff += (a[i] - exact[i]) * (a[i] - exact[i]);
            norm += exact[i] * exact[i];
        }
        return Math.sqrt(diff / norm);
    }
}
