package org.traindeck.engine.model.layers;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.samediff.SameDiffLayer;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.autodiff.samediff.SDVariable;
import org.nd4j.autodiff.samediff.SameDiff;
import org.nd4j.autodiff.samediff.array.SingleThreadArrayHolder;
import org.nd4j.autodiff.util.SameDiffUtils;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * DL4J's SameDiff layer runtime with these changes. DL4J fixes every placeholder dimension but the minibatch from
 * the first input it sees, so a layer built at one sequence length would refuse another (generation, a shorter
 * last batch of a corpus); here every dimension is free and the layers read sizes from the data. And the
 * gradient function is built with SameDiff's per-op stdout chatter filtered out. The incoming gradient is halved
 * (see {@link #EXTERNAL_ERRORS_COUNTED_TWICE}), and {@link #setParam} sets the parameter.
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

    @Override
    protected void doInit() {
        try (MemoryWorkspace ignored = Nd4j.getWorkspaceManager().scopeOutOfWorkspaces()) {
            SameDiffLayer layer = (SameDiffLayer) layerConf();
            sameDiff = SameDiff.create();
            // single-threaded holders let the parameter views be used in place, as DL4J's own runtime does
            sameDiff.setArrayHolders(new SingleThreadArrayHolder(), new SingleThreadArrayHolder(), false);

            long[] anyShape = new long[input.rank()];
            Arrays.fill(anyShape, -1);
            SDVariable inputVar = sameDiff.placeHolder(INPUT_KEY, dataType, anyShape);
            Map<String, SDVariable> params = new LinkedHashMap<>();
            layer.getLayerParams().getParamShapes().forEach((key, shape) -> params.put(key, sameDiff.var(key, dataType, shape)));
            SDVariable mask = sameDiff.placeHolder(MASK_KEY, dataType, anyShape);

            outputVar = layer.defineLayer(sameDiff, inputVar, params, mask);
            for (Map.Entry<String, INDArray> e : paramTable().entrySet()) {
                sameDiff.associateArrayWithVariable(e.getValue(), sameDiff.getVariable(e.getKey()));
            }
            fn = SameDiffUtils.externalErrors(sameDiff, null, outputVar);
            fn.outputVariable();
            outputKey = outputVar.name();
        }
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
                StdoutLineFilter.runDroppingLines(DIFFERENTIATION_CHATTER, () -> sameDiff.createGradFunction(INPUT_KEY));
            }
        }
        return super.backpropGradient(epsilon.mul(EXTERNAL_ERRORS_COUNTED_TWICE), workspaceMgr);
    }
}
