package org.traindeck.engine.model.kernels.conv;

import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.layers.normalization.BatchNormalization;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * {@link BatchNormKernel} at run time: a training pass over float32 NCHW images or feature rows runs on the fused
 * kernel ({@link BatchNormPass}); inference and every other case is DL4J's BatchNormalization, unchanged.
 */
public class BatchNormKernelLayer extends BatchNormalization {

    private final BatchNormPass pass = new BatchNormPass();

    public BatchNormKernelLayer(NeuralNetConfiguration conf, DataType dataType) {
        super(conf, dataType);
    }

    @Override
    public INDArray activate(boolean training, LayerWorkspaceMgr mgr) {
        pass.clear();
        if (!training || !BatchNormPass.computes(input, layerConf(), dataType)) {
            return super.activate(training, mgr);
        }
        assertInputSet(false);
        return BatchNormKernelGradients.forward(pass, input, layerConf(), paramTable(), null, mgr);
    }

    @Override
    public Pair<Gradient, INDArray> backpropGradient(INDArray epsilon, LayerWorkspaceMgr mgr) {
        if (!pass.holds(epsilon)) {
            return super.backpropGradient(epsilon, mgr);
        }
        assertInputSet(true);
        return BatchNormKernelGradients.backward(
                pass, input, epsilon, layerConf(), paramTable(), gradientViews, null, mgr);
    }

    @Override
    public void clear() {
        super.clear();
        pass.clear();
    }
}
