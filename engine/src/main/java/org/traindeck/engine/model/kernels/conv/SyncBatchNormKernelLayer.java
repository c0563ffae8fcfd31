package org.traindeck.engine.model.kernels.conv;

import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * {@link SyncBatchNormKernel} at run time: the fused kernel ({@link BatchNormPass}) with the statistics of every
 * replica's micro-batch while a synchronous step is under way, with this replica's own otherwise; cases the kernel
 * does not take go to {@link SyncBatchNormLayer} (and so to DL4J's BatchNormalization).
 */
public class SyncBatchNormKernelLayer extends SyncBatchNormLayer {

    private final BatchNormPass pass = new BatchNormPass();
    private BatchStatsExchange link;
    private BatchNormPass.Link inUse;

    public SyncBatchNormKernelLayer(NeuralNetConfiguration conf, DataType dataType) {
        super(conf, dataType);
    }

    @Override
    public void exchange(BatchStatsExchange newExchange) {
        super.exchange(newExchange);
        this.link = newExchange;
    }

    @Override
    public INDArray activate(boolean training, LayerWorkspaceMgr mgr) {
        pass.clear();
        if (!training || !BatchNormPass.computes(input, layerConf(), dataType)) {
            return super.activate(training, mgr);
        }
        assertInputSet(false);
        inUse = link != null && link.active()
                ? new BatchNormPass.Link(link, layerConf().getLayerName())
                : null;
        return BatchNormKernelGradients.forward(pass, input, layerConf(), paramTable(), inUse, mgr);
    }

    @Override
    public Pair<Gradient, INDArray> backpropGradient(INDArray epsilon, LayerWorkspaceMgr mgr) {
        if (!pass.holds(epsilon)) {
            return super.backpropGradient(epsilon, mgr);
        }
        assertInputSet(true);
        return BatchNormKernelGradients.backward(
                pass, input, epsilon, layerConf(), paramTable(), gradientViews, inUse, mgr);
    }

    @Override
    public void clear() {
        super.clear();
        pass.clear();
    }
}
