package org.traindeck.engine.model.layers;

import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * DL4J's SameDiff layer runtime with three fixes: the incoming gradient is halved (see
 * {@link #EXTERNAL_ERRORS_COUNTED_TWICE}), the gradient function is built with SameDiff's per-op stdout chatter
 * filtered out, and {@link #setParam} sets the parameter.
 */
class SameDiffLayerRuntime extends org.deeplearning4j.nn.layers.samediff.SameDiffLayer {

    private static final String DIFFERENTIATION_CHATTER = "Added differentiated op";
    /**
     * M2.1 defect: ExternalErrorsFunction.doDiff registers the incoming-gradient placeholder as the output's gradient,
     * and DifferentialFunction.diff then adds the returned placeholder to it again, so every gradient a SameDiff layer
     * computes (parameters and input) is exactly twice the true one. Halving the incoming gradient is exact in binary
     * floating point. The gradient checks fail if a DL4J upgrade fixes the defect.
     */
    private static final double EXTERNAL_ERRORS_COUNTED_TWICE = 0.5;

    SameDiffLayerRuntime(NeuralNetConfiguration conf, DataType dataType) {
        super(conf, dataType);
    }

    /** DL4J's version checks the shape and then drops the value, so {@code ComputationGraph.setParam} did nothing. */
    @Override
    public void setParam(String key, INDArray val) {
        super.setParam(key, val);
        getParam(key).assign(val);
    }

    @Override
    public Pair<Gradient, INDArray> backpropGradient(INDArray epsilon, LayerWorkspaceMgr workspaceMgr) {
        if (sameDiff == null || !sameDiff.hasGradientFunction()) {
            assertInputSet(true);
            try (MemoryWorkspace ignored = Nd4j.getWorkspaceManager().scopeOutOfWorkspaces()) {
                if (sameDiff == null) {
                    doInit();
                }
                StdoutLineFilter.runDroppingLines(
                        DIFFERENTIATION_CHATTER, () -> sameDiff.createGradFunction(INPUT_KEY));
            }
        }
        return super.backpropGradient(epsilon.mul(EXTERNAL_ERRORS_COUNTED_TWICE), workspaceMgr);
    }
}
