package org.traindeck.engine.train.resume;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.schedule.FixedSchedule;
import org.traindeck.engine.checkpoint.Checkpoint;
import org.traindeck.engine.checkpoint.CheckpointFiles;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.OptimizerConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.config.read.ConfigWriter;
import org.traindeck.engine.model.ModelCompiler;
import org.traindeck.engine.model.ModelInput;
import org.traindeck.engine.model.kernels.KernelChoices;
import org.traindeck.engine.train.step.Optimizers;

/**
 * A gpt/vit checkpoint written before the fused transformer block holds the Adam moments in DL4J's grouping for the
 * spelled-out blocks, which differs from the fused block's as soon as the stage's optimizer is not DL4J's placeholder:
 * the same number of values, in other places. Such a checkpoint is refused into the fused blocks, with the way out.
 */
class SpelledOutBlockCheckpointTest {

    private static final ModelInput TOKENS = ModelInput.tokens(20, 6, Task.SEQUENCE, 20);
    private static final OptimizerConfig ADAM = new OptimizerConfig("adam", 3e-3, 0.9, 0.9, 0.999, 1e-8, 0);

    private static ComputationGraph gpt(String kernel) {
        ComputationGraph net = ModelCompiler.build(new ModelConfig.Gpt(16, 2, 2, 2, 0, false, kernel), TOKENS, 7);
        Optimizers.install(net, ADAM, new FixedSchedule(3e-3), false);
        return net;
    }

    private static CheckpointFiles.Contents checkpointOf(ComputationGraph net, String runId) {
        return checkpointOf(net, runId, Checkpoint.OPTIMIZER_LAYOUT);
    }

    static CheckpointFiles.Contents checkpointOf(ComputationGraph net, String runId, int optimizerLayout) {
        float[] params = net.params().toFloatVector();
        float[] state = net.getUpdater().getStateViewArray().toFloatVector();
        Checkpoint c = new Checkpoint(
                Checkpoint.FORMAT_VERSION,
                "r",
                "s",
                0,
                1,
                2,
                3,
                0,
                1.5,
                0.7,
                4,
                Map.of(),
                "fp",
                params.length,
                state.length,
                "FLOAT",
                "time",
                0,
                1,
                runId,
                optimizerLayout);
        return new CheckpointFiles.Contents(c, "{}", params, state, null);
    }

    @Test
    void theTwoBlockLayoutsGroupedTheOptimizerStateDifferentlyWhileSameDiffLayersKeptAPlaceholder() {
        ComputationGraph fused = PlaceholderOptimizer.restore(gpt(null));
        ComputationGraph spelledOut = PlaceholderOptimizer.restore(gpt("dl4j"));
        assertThat(fused.getUpdater().getStateViewArray().length())
                .isEqualTo(spelledOut.getUpdater().getStateViewArray().length());
        assertThat(fused.getUpdater().getUpdaterBlocks().size())
                .isNotEqualTo(spelledOut.getUpdater().getUpdaterBlocks().size());
        // with the stage's optimizer everywhere, both are one block
        assertThat(gpt(null).getUpdater().getUpdaterBlocks()).hasSize(1);
        assertThat(gpt("dl4j").getUpdater().getUpdaterBlocks()).hasSize(1);
    }

    @Test
    void aCheckpointWithoutARunIdIsRefusedIntoTheFusedBlocksAndSaysHowToResume() {
        ComputationGraph writer = PlaceholderOptimizer.restore(gpt("dl4j"));
        writer.getUpdater()
                .getStateViewArray()
                .assign(Nd4j.linspace(
                        1, 2, writer.getUpdater().getStateViewArray().length()));
        CheckpointFiles.Contents old = checkpointOf(writer, "", 1);

        assertThatThrownBy(() -> new ResumePoint(old).loadInto(gpt(null), 3))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("\"kernel\": \"dl4j\"");

        ComputationGraph spelledOut = gpt("dl4j");
        new ResumePoint(old).loadInto(spelledOut, 3);
        assertThat(PlaceholderOptimizer.moments(spelledOut)).isEqualTo(PlaceholderOptimizer.moments(writer));
    }

    @Test
    void aCheckpointOfTheFusedBlocksLoadsIntoThem() {
        ComputationGraph written = gpt(null);
        CheckpointFiles.Contents current = checkpointOf(written, "run-1");
        ComputationGraph fused = gpt(null);
        new ResumePoint(current).loadInto(fused, 3);
        assertThat(fused.params().toFloatVector()).isEqualTo(current.params());
    }

    @Test
    void theKernelAndRecomputeChoicesLeaveTheModelFingerprintAlone() {
        String plain =
                ConfigWriter.modelJson(KernelChoices.withoutChoices(new ModelConfig.Gpt(16, 2, 2, 2, 0, false, null)));
        assertThat(ConfigWriter.modelJson(
                        KernelChoices.withoutChoices(new ModelConfig.Gpt(16, 2, 2, 2, 0, true, "dl4j"))))
                .isEqualTo(plain);
        String vit = ConfigWriter.modelJson(
                KernelChoices.withoutChoices(new ModelConfig.Vit(2, 16, 1, 2, 2, true, 0, false, null)));
        assertThat(ConfigWriter.modelJson(
                        KernelChoices.withoutChoices(new ModelConfig.Vit(2, 16, 1, 2, 2, true, 0, true, "dl4j"))))
                .isEqualTo(vit);
    }
}
