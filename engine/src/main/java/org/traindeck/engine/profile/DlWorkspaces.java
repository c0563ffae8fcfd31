package org.traindeck.engine.profile;

import org.deeplearning4j.nn.conf.CacheMode;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.linalg.api.memory.conf.WorkspaceConfiguration;
import org.nd4j.linalg.api.memory.enums.AllocationPolicy;
import org.nd4j.linalg.api.memory.enums.LearningPolicy;
import org.nd4j.linalg.api.memory.enums.ResetPolicy;
import org.nd4j.linalg.api.memory.enums.SpillPolicy;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * The workspaces DL4J's ComputationGraph (M2.1) trains in, by the same names and with the same policies, so that a
 * {@link GraphWalk} reuses the memory the network's own passes learned (workspaces are per thread, found by name).
 */
final class DlWorkspaces {

    private static final String LAYER_WORKING_MEM = "WS_LAYER_WORKING_MEM";
    private static final String ALL_LAYERS_ACT = "WS_ALL_LAYERS_ACT";
    private static final String RNN_LOOP_WORKING_MEM = "WS_RNN_LOOP_WORKING_MEM";

    private static final WorkspaceConfiguration ALL_LAYERS_ACT_CONFIG = WorkspaceConfiguration.builder()
            .initialSize(0)
            .overallocationLimit(0.05)
            .policyLearning(LearningPolicy.FIRST_LOOP)
            .policyReset(ResetPolicy.BLOCK_LEFT)
            .policySpill(SpillPolicy.REALLOCATE)
            .policyAllocation(AllocationPolicy.OVERALLOCATE)
            .build();
    private static final WorkspaceConfiguration RNN_LOOP_WORKING_MEM_CONFIG = WorkspaceConfiguration.builder()
            .initialSize(0)
            .overallocationLimit(0.05)
            .policyReset(ResetPolicy.BLOCK_LEFT)
            .policyAllocation(AllocationPolicy.OVERALLOCATE)
            .policySpill(SpillPolicy.REALLOCATE)
            .policyLearning(LearningPolicy.FIRST_LOOP)
            .build();

    private final WorkspaceConfiguration layerWorkingMem;
    private final WorkspaceConfiguration layerActX;

    /** @param vertexCount the graph's vertices (DL4J sizes its learning cycles by them) */
    DlWorkspaces(int vertexCount) {
        this.layerWorkingMem = learningOverTime(2 * vertexCount);
        this.layerActX = learningOverTime(vertexCount);
    }

    private static WorkspaceConfiguration learningOverTime(int cycles) {
        return WorkspaceConfiguration.builder()
                .initialSize(0)
                .overallocationLimit(0.02)
                .policyLearning(LearningPolicy.OVER_TIME)
                .cyclesBeforeInitialization(cycles)
                .policyReset(ResetPolicy.BLOCK_LEFT)
                .policySpill(SpillPolicy.REALLOCATE)
                .policyAllocation(AllocationPolicy.OVERALLOCATE)
                .build();
    }

    /** computeGradientAndScore's: the whole pass, the loss and the updater's working memory. */
    LayerWorkspaceMgr step() {
        return LayerWorkspaceMgr.builder()
                .with(ArrayType.ACTIVATIONS, ALL_LAYERS_ACT, ALL_LAYERS_ACT_CONFIG)
                .with(ArrayType.INPUT, ALL_LAYERS_ACT, ALL_LAYERS_ACT_CONFIG)
                .with(ArrayType.FF_WORKING_MEM, LAYER_WORKING_MEM, layerWorkingMem)
                .with(ArrayType.BP_WORKING_MEM, LAYER_WORKING_MEM, layerWorkingMem)
                .with(ArrayType.RNN_FF_LOOP_WORKING_MEM, RNN_LOOP_WORKING_MEM, RNN_LOOP_WORKING_MEM_CONFIG)
                .with(ArrayType.RNN_BP_LOOP_WORKING_MEM, RNN_LOOP_WORKING_MEM, RNN_LOOP_WORKING_MEM_CONFIG)
                .with(ArrayType.UPDATER_WORKING_MEM, ALL_LAYERS_ACT, ALL_LAYERS_ACT_CONFIG)
                .build();
    }

    /** ffToLayerActivationsInWS's, in training. */
    LayerWorkspaceMgr forward(INDArray firstInput, CacheMode cacheMode) {
        LayerWorkspaceMgr mgr = LayerWorkspaceMgr.builder()
                .with(ArrayType.ACTIVATIONS, ALL_LAYERS_ACT, ALL_LAYERS_ACT_CONFIG)
                .with(ArrayType.INPUT, ALL_LAYERS_ACT, ALL_LAYERS_ACT_CONFIG)
                .with(ArrayType.FF_WORKING_MEM, LAYER_WORKING_MEM, layerWorkingMem)
                .with(ArrayType.RNN_FF_LOOP_WORKING_MEM, RNN_LOOP_WORKING_MEM, RNN_LOOP_WORKING_MEM_CONFIG)
                .build();
        if (firstInput.isAttached()) {
            mgr.setNoLeverageOverride(firstInput.data().getParentWorkspace().getId());
        }
        if (cacheMode != CacheMode.NONE) {
            mgr.setWorkspace(ArrayType.FF_CACHE, ALL_LAYERS_ACT, ALL_LAYERS_ACT_CONFIG);
        }
        return mgr;
    }

    /** calcBackpropGradients's n-th manager for activation gradients. */
    LayerWorkspaceMgr activationGradients(int n) {
        return LayerWorkspaceMgr.builder()
                .with(ArrayType.INPUT, ALL_LAYERS_ACT, ALL_LAYERS_ACT_CONFIG)
                .with(ArrayType.ACTIVATION_GRAD, "WS_LAYER_ACT_" + n, layerActX)
                .with(ArrayType.ACTIVATIONS, LAYER_WORKING_MEM, layerWorkingMem)
                .with(ArrayType.FF_WORKING_MEM, LAYER_WORKING_MEM, layerWorkingMem)
                .with(ArrayType.BP_WORKING_MEM, LAYER_WORKING_MEM, layerWorkingMem)
                .with(ArrayType.RNN_FF_LOOP_WORKING_MEM, RNN_LOOP_WORKING_MEM, RNN_LOOP_WORKING_MEM_CONFIG)
                .with(ArrayType.RNN_BP_LOOP_WORKING_MEM, RNN_LOOP_WORKING_MEM, RNN_LOOP_WORKING_MEM_CONFIG)
                .build();
    }
}
