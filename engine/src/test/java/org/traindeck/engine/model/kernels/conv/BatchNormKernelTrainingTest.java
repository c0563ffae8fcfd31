package org.traindeck.engine.model.kernels.conv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.engine.model.kernels.dense.DenseKernelTest.assertRelativelyClose;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.traindeck.engine.parallel.BatchStatsGroup;

/**
 * The fused batch norm inside real networks: training steps with Adam from the same parameters give the same
 * parameters and running statistics as DL4J's BatchNorm, and two synchronized replicas on halves of a batch give the
 * whole batch's gradient.
 */
class BatchNormKernelTrainingTest {

    private static INDArray[] batch(int n, long seed) {
        Nd4j.getRandom().setSeed(seed);
        INDArray x = Nd4j.rand(DataType.FLOAT, n, 2, 5, 5).muli(3).addi(1);
        INDArray y = Nd4j.zeros(DataType.FLOAT, n, 3);
        for (int i = 0; i < n; i++) {
            y.putScalar(i, (i * 7 + seed) % 3, 1);
        }
        return new INDArray[] {x, y};
    }

    @Test
    void tenAdamStepsMatchDl4jsBatchNormInParametersAndRunningStatistics() {
        ComputationGraph reference = new ComputationGraph(BatchNormNets.conf(DataType.FLOAT, false));
        reference.init();
        ComputationGraph kernel = new ComputationGraph(BatchNormNets.conf(DataType.FLOAT, true));
        kernel.init(reference.params().dup(), true);
        assertThat(kernel.getLayer("bn0")).isInstanceOf(BatchNormKernelLayer.class);
        assertThat(kernel.paramTable().keySet())
                .containsExactlyElementsOf(reference.paramTable().keySet());
        for (int step = 0; step < 10; step++) {
            INDArray[] b = batch(12, step);
            reference.fit(new DataSet(b[0], b[1]));
            kernel.fit(new DataSet(b[0], b[1]));
            assertThat(kernel.score()).as("loss of step %d", step).isCloseTo(reference.score(), withinRelative(1e-4));
        }
        for (String p : reference.paramTable().keySet()) {
            assertRelativelyClose(kernel.getParam(p), reference.getParam(p), 1e-4, p);
        }
        INDArray[] test = batch(7, 99);
        assertRelativelyClose(kernel.outputSingle(test[0]), reference.outputSingle(test[0]), 1e-4, "inference");
    }

    private static org.assertj.core.data.Offset<Double> withinRelative(double r) {
        return org.assertj.core.data.Offset.offset(r);
    }

    private static INDArray gradient(ComputationGraph net, INDArray x, INDArray y) {
        net.setInputs(x);
        net.setLabels(y);
        net.computeGradientAndScore();
        return net.getGradientsViewArray().dup();
    }

    @Test
    void twoSynchronizedReplicasOnHalvesGiveTheWholeBatchsGradient() throws Exception {
        INDArray[] b = batch(12, 7);
        ComputationGraph whole = new ComputationGraph(BatchNormNets.conf(DataType.FLOAT, true));
        whole.init();
        whole.initGradientsView();
        INDArray expected = gradient(whole, b[0], b[1]);
        BatchStatsGroup group = new BatchStatsGroup(2, Duration.ofSeconds(30));
        List<ComputationGraph> replicas = new ArrayList<>();
        for (int w = 0; w < 2; w++) {
            var conf = BatchNormNets.conf(DataType.FLOAT, true);
            conf.getVertices().values().forEach(v -> {
                if (v instanceof org.deeplearning4j.nn.conf.graph.LayerVertex l
                        && l.getLayerConf().getLayer() instanceof BatchNormKernel bn) {
                    l.getLayerConf().setLayer(SyncBatchNorm.of(bn));
                }
            });
            ComputationGraph r = new ComputationGraph(conf);
            r.init(whole.params().dup(), false);
            r.initGradientsView();
            for (var layer : r.getLayers()) {
                if (layer instanceof SyncBatchNormLayer s) {
                    assertThat(s).isInstanceOf(SyncBatchNormKernelLayer.class);
                    s.exchange(group.member(w));
                }
            }
            replicas.add(r);
        }
        group.beginStep(new int[] {1, 1});
        CompletableFuture<INDArray> second = CompletableFuture.supplyAsync(() -> gradient(
                replicas.get(1), b[0].get(NDArrayIndex.interval(7, 12)), b[1].get(NDArrayIndex.interval(7, 12))));
        INDArray first =
                gradient(replicas.get(0), b[0].get(NDArrayIndex.interval(0, 7)), b[1].get(NDArrayIndex.interval(0, 7)));
        INDArray summed = first.add(second.get());
        group.endStep();
        // gradients sum over the replicas; the running-statistics updates are each the whole batch's
        INDArray statsMask = Nd4j.zeros(DataType.FLOAT, expected.shape());
        long offset = 0;
        for (var layer : whole.getLayers()) {
            for (var e : layer.paramTable().entrySet()) {
                long n = e.getValue().length();
                if (layer instanceof BatchNormKernelLayer
                        && (e.getKey().equals("mean") || e.getKey().equals("log10stdev"))) {
                    statsMask
                            .get(NDArrayIndex.point(0), NDArrayIndex.interval(offset, offset + n))
                            .assign(1);
                }
                offset += n;
            }
        }
        assertThat(statsMask.sumNumber().intValue()).isEqualTo(2 * (4 + 6));
        INDArray actual =
                summed.mul(statsMask.rsub(1)).addi(summed.mul(statsMask).divi(2));
        assertRelativelyClose(actual, expected, 1e-5, "synchronized gradient");
    }
}
