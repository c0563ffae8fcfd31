package org.traindeck.engine.model.kernels.transformer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.engine.model.kernels.transformer.TransformerBlockGradientTest.relativeError;

import java.util.ArrayList;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.MultiDataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.model.ModelCompiler;
import org.traindeck.engine.model.ModelInput;

/** A model trained on the spelled-out blocks (every checkpoint before the fused kernel) goes on in the fused one. */
class TransformerBlockCompatibilityTest {

    @Test
    void parametersAndAdamStateOfTheSpelledOutBlocksCarryOnInTheFusedBlocks() {
        ComputationGraph old = BlockGraphs.reference(true, 5, 3);
        Nd4j.getRandom().setSeed(5);
        MultiDataSet batch = new MultiDataSet(
                Nd4j.randn(DataType.FLOAT, 4, BlockGraphs.WIDTH, 5),
                Nd4j.randn(DataType.FLOAT, 4, BlockGraphs.OUTPUTS, 5));
        for (int i = 0; i < 3; i++) {
            old.fit(batch);
        }
        ComputationGraph fused = BlockGraphs.fused(true, 5, 99, 0, false);
        assertThat(fused.getUpdater().getStateViewArray().length())
                .isEqualTo(old.getUpdater().getStateViewArray().length());
        fused.params().assign(old.params());
        fused.getUpdater().getStateViewArray().assign(old.getUpdater().getStateViewArray());
        fused.getConfiguration().setIterationCount(old.getConfiguration().getIterationCount());

        assertThat(relativeError(fused.outputSingle(batch.getFeatures(0)), old.outputSingle(batch.getFeatures(0))))
                .isLessThan(1e-5);
        for (int i = 0; i < 2; i++) {
            old.fit(batch);
            fused.fit(batch);
        }
        assertThat(relativeError(fused.params(), old.params())).isLessThan(1e-5);
        assertThat(relativeError(
                        fused.getUpdater().getStateViewArray(), old.getUpdater().getStateViewArray()))
                .isLessThan(1e-4);
    }

    @Test
    void theGptShorthandHasTheSameParametersOnEitherKernel() {
        ModelInput tokens = ModelInput.tokens(20, 6, Task.SEQUENCE, 20);
        ComputationGraph own = ModelCompiler.build(new ModelConfig.Gpt(16, 2, 2, 2, 0, false, null), tokens, 7);
        ComputationGraph reference = ModelCompiler.build(new ModelConfig.Gpt(16, 2, 2, 2, 0, false, "dl4j"), tokens, 7);

        assertThat(new ArrayList<>(own.paramTable().keySet()))
                .isEqualTo(reference.paramTable().keySet().stream()
                        .map(TransformerBlockGradientTest::fusedKey)
                        .toList());
        assertThat(own.params()).isEqualTo(reference.params());
        assertThat(own.getUpdater().getStateViewArray().length())
                .isEqualTo(reference.getUpdater().getStateViewArray().length());
        INDArray ids = Nd4j.createFromArray(new float[] {1, 4, 4, 9, 0, 3, 2, 2, 7, 7, 19, 5})
                .reshape(2, 1, 6);
        assertThat(relativeError(own.outputSingle(ids), reference.outputSingle(ids)))
                .isLessThan(1e-5);
    }
}
