package org.traindeck.engine.model.kernels.conv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.engine.model.kernels.LayerGradients.checkSlopes;
import static org.traindeck.engine.model.kernels.LayerGradients.forwardBackward;
import static org.traindeck.engine.model.kernels.LayerGradients.weightedOutput;
import static org.traindeck.engine.model.kernels.dense.DenseKernelTest.assertRelativelyClose;
import static org.traindeck.engine.model.kernels.dense.DenseKernelTest.instantiate;

import java.util.function.DoubleSupplier;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.model.kernels.LayerGradients.Tolerance;

/**
 * The fused batch norm against DL4J's BatchNormalization layer with the same parameters: outputs, input gradient and
 * the whole gradient view (gamma, beta and the running-statistics updates), in float32 and against DL4J in float64,
 * and central differences of the kernel's own forward pass.
 */
class BatchNormKernelTest {

    private static BatchNormalization dl4j(boolean logStd) {
        return new BatchNormalization.Builder()
                .decay(0.8)
                .eps(1e-4)
                .useLogStd(logStd)
                .build();
    }

    /** A kernel and a DL4J layer (of {@code type}) with the same random gamma, beta and running statistics. */
    private static Layer[] pair(int channels, boolean logStd, DataType type) {
        BatchNormalization conf = dl4j(logStd);
        conf.setNIn(channels);
        conf.setNOut(channels);
        Layer ref = instantiate(conf, type);
        Layer k = instantiate(BatchNormKernel.of(conf));
        assertThat(k).isInstanceOf(BatchNormKernelLayer.class);
        assertThat(k.paramTable().keySet())
                .containsExactlyElementsOf(ref.paramTable().keySet());
        INDArray params = Nd4j.rand(DataType.FLOAT, k.params().shape()).addi(0.5);
        k.params().assign(params);
        ref.params().assign(params.castTo(type));
        return new Layer[] {k, ref};
    }

    private static void compare(INDArray x, boolean logStd, DataType refType, double tolerance) {
        int channels = (int) x.size(1);
        Layer[] layers = pair(channels, logStd, refType);
        INDArray eps = Nd4j.randn(DataType.FLOAT, x.shape());
        INDArray[] kOut = new INDArray[1];
        INDArray[] rOut = new INDArray[1];
        Pair<Gradient, INDArray> g = forwardBackward(layers[0], x, eps, kOut);
        Pair<Gradient, INDArray> r = forwardBackward(layers[1], x.castTo(refType), eps.castTo(refType), rOut);
        assertRelativelyClose(kOut[0], rOut[0], tolerance, "output");
        assertRelativelyClose(g.getSecond(), r.getSecond(), tolerance, "input gradient");
        assertThat(g.getFirst().gradientForVariable().keySet())
                .containsExactlyInAnyOrderElementsOf(
                        r.getFirst().gradientForVariable().keySet());
        for (String p : r.getFirst().gradientForVariable().keySet()) {
            assertRelativelyClose(
                    g.getFirst().getGradientFor(p), r.getFirst().getGradientFor(p), tolerance, "gradient of " + p);
        }
        assertRelativelyClose(
                layers[0].getGradientsViewArray(), layers[1].getGradientsViewArray(), tolerance, "flat gradient view");
        // inference is DL4J's own path on both
        LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
        layers[0].setInput(x, ws);
        layers[1].setInput(x.castTo(refType), ws);
        assertRelativelyClose(layers[0].activate(false, ws), layers[1].activate(false, ws), tolerance, "inference");
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void imagesMatchDl4jsLayer(boolean logStd) {
        compare(Nd4j.randn(DataType.FLOAT, 5, 3, 6, 7).muli(2).addi(3), logStd, DataType.FLOAT, 1e-5);
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void rowsMatchDl4jsLayer(boolean logStd) {
        compare(Nd4j.randn(DataType.FLOAT, 9, 6).muli(3).addi(-1), logStd, DataType.FLOAT, 1e-5);
    }

    @Test
    void imagesMatchDl4jsLayerInDoublePrecision() {
        // one channel far from zero: the variance of a float batch is where precision goes first
        INDArray x = Nd4j.randn(DataType.FLOAT, 8, 4, 5, 5);
        x.get(org.nd4j.linalg.indexing.NDArrayIndex.all(), org.nd4j.linalg.indexing.NDArrayIndex.point(2))
                .addi(40);
        compare(x, true, DataType.DOUBLE, 1e-5);
    }

    @Test
    void aViewInputIsReadCorrectly() {
        compare(Nd4j.randn(DataType.FLOAT, 4, 5, 3, 6).permute(0, 1, 3, 2), true, DataType.FLOAT, 1e-5);
    }

    /** Central differences (float, step 1e-2) of L = Σ eps·out in training mode, for the parameters and the input. */
    @Test
    void gradientsMatchFiniteDifferences() {
        Layer k = pair(3, true, DataType.FLOAT)[0];
        INDArray x = Nd4j.randn(DataType.FLOAT, 4, 3, 2, 2);
        INDArray eps = Nd4j.randn(DataType.FLOAT, 4, 3, 2, 2);
        Pair<Gradient, INDArray> g = forwardBackward(k, x, eps, new INDArray[1]);
        DoubleSupplier loss = () -> weightedOutput(k, x, eps, true);
        String[] learned = {"gamma", "beta"};
        for (String p : learned) {
            checkSlopes(k.getParam(p), g.getFirst().getGradientFor(p).dup(), loss, Tolerance.DEFAULT, p);
        }
        checkSlopes(x, g.getSecond(), loss, Tolerance.DEFAULT, "input");
    }

    @Test
    void configurationSurvivesJsonAndSynchronizesOnTheKernel() {
        ComputationGraphConfiguration conf = BatchNormNets.conf(DataType.FLOAT, true);
        ComputationGraphConfiguration back = ComputationGraphConfiguration.fromJson(conf.toJson());
        assertThat(back).isEqualTo(conf);
        BatchNormalization bn = (BatchNormalization)
                ((LayerVertex) back.getVertices().get("bn1")).getLayerConf().getLayer();
        assertThat(bn).isExactlyInstanceOf(BatchNormKernel.class);
        assertThat(bn.getDecay()).isEqualTo(0.8);
        assertThat(conf).isNotEqualTo(BatchNormNets.conf(DataType.FLOAT, false));
        assertThat(SyncBatchNorm.convertible(bn)).isTrue();
        assertThat(SyncBatchNorm.of(bn)).isExactlyInstanceOf(SyncBatchNormKernel.class);
        assertThat(SyncBatchNorm.of(dl4j(true))).isExactlyInstanceOf(SyncBatchNorm.class);
        assertThat(SyncBatchNorm.of(bn)).isNotEqualTo(SyncBatchNorm.of(dl4j(true)));
    }
}
