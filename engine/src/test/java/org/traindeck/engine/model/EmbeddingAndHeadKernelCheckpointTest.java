package org.traindeck.engine.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.conf.layers.DropoutLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.updater.UpdaterBlock;
import org.deeplearning4j.nn.weights.WeightInit;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.schedule.FixedSchedule;
import org.traindeck.engine.checkpoint.Checkpoint;
import org.traindeck.engine.checkpoint.CheckpointFiles;
import org.traindeck.engine.config.LayerSpec;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.OptimizerConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.model.kernels.KernelUse;
import org.traindeck.engine.model.kernels.dense.SoftmaxSequenceHead;
import org.traindeck.engine.model.kernels.embedding.PositionEmbeddingKernel;
import org.traindeck.engine.model.kernels.embedding.TokenEmbedding;
import org.traindeck.engine.model.layers.PositionEmbedding;
import org.traindeck.engine.train.resume.ResumePoint;
import org.traindeck.engine.train.step.Optimizers;

/**
 * A gpt checkpoint written before the token, position and head kernels (DL4J's EmbeddingSequenceLayer, the SameDiff
 * position embedding, DL4J's RnnOutputLayer) loads into the kernels: the same parameter names, order and layouts, the
 * same optimizer-state grouping, and training continues alike.
 */
class EmbeddingAndHeadKernelCheckpointTest {

    private static final ModelInput TOKENS = ModelInput.tokens(20, 6, Task.SEQUENCE, 20);
    private static final OptimizerConfig ADAMW = new OptimizerConfig("adamw", 3e-3, 0.9, 0.9, 0.999, 1e-8, 0.01);
    private static final ModelConfig.Gpt GPT = new ModelConfig.Gpt(16, 2, 2, 2, 0, false, null);

    /** The gpt as it was built before the kernels: the same nodes, the embeddings and the head on DL4J's layers. */
    private static ComputationGraph beforeTheKernels() {
        List<LayerSpec> layers = new ArrayList<>();
        for (LayerSpec spec : Expansions.gpt(GPT)) {
            Map<String, Object> options = new LinkedHashMap<>(spec.options());
            if (spec.type().equals("embedding") || spec.type().equals("positionEmbedding")) {
                options.put("kernel", "dl4j");
            }
            layers.add(new LayerSpec(spec.name(), spec.type(), spec.inputs(), options));
        }
        ComputationGraph net = new ComputationGraph(new GraphCompiler(LayerKinds.standard(), KernelUse.OWN)
                .compile(
                        ModelBase.builder(7, WeightInit.XAVIER).graphBuilder().addInputs(Heads.INPUT),
                        layers,
                        null,
                        TOKENS,
                        false));
        net.init();
        return install(net);
    }

    private static ComputationGraph install(ComputationGraph net) {
        Optimizers.install(net, ADAMW, new FixedSchedule(3e-3), false);
        return net;
    }

    private static DataSet batch(long seed) {
        Nd4j.getRandom().setSeed(seed);
        INDArray x =
                Nd4j.rand(DataType.FLOAT, 4, 6).muli(20).castTo(DataType.INT32).castTo(DataType.FLOAT);
        INDArray y = Nd4j.zeros(DataType.FLOAT, 4, 20, 6);
        for (int b = 0; b < 4; b++) {
            for (int t = 0; t < 6; t++) {
                y.putScalar(new long[] {b, (b * 3 + t * 7) % 20, t}, 1);
            }
        }
        return new DataSet(x, y);
    }

    private static CheckpointFiles.Contents checkpointOf(ComputationGraph net) {
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
                "run-1");
        return new CheckpointFiles.Contents(c, "{}", params, state, null);
    }

    @Test
    void theKernelsHaveTheReferenceLayersParametersAndOptimizerGrouping() {
        ComputationGraph before = beforeTheKernels();
        ComputationGraph now = install(ModelCompiler.build(GPT, TOKENS, 7, KernelUse.OWN));
        assertThat(now.getLayer("tokens").conf().getLayer()).isInstanceOf(TokenEmbedding.class);
        assertThat(now.getLayer("positions").conf().getLayer()).isInstanceOf(PositionEmbeddingKernel.class);
        assertThat(now.getLayer("output").conf().getLayer()).isInstanceOf(SoftmaxSequenceHead.class);
        assertThat(before.getLayer("positions").conf().getLayer().getClass()).isEqualTo(PositionEmbedding.class);
        assertThat(before.getLayer("output").conf().getLayer()).isNotInstanceOf(SoftmaxSequenceHead.class);

        assertThat(now.paramTable().keySet())
                .containsExactlyElementsOf(before.paramTable().keySet());
        before.paramTable().forEach((k, v) -> {
            assertThat(now.paramTable().get(k).shape()).as(k).isEqualTo(v.shape());
            assertThat(now.paramTable().get(k).ordering()).as(k).isEqualTo(v.ordering());
        });
        assertThat(now.params()).isEqualTo(before.params());
        List<UpdaterBlock> a = before.getUpdater().getUpdaterBlocks();
        List<UpdaterBlock> b = now.getUpdater().getUpdaterBlocks();
        assertThat(b).hasSameSizeAs(a);
        for (int i = 0; i < a.size(); i++) {
            assertThat(b.get(i).getParamOffsetStart()).isEqualTo(a.get(i).getParamOffsetStart());
            assertThat(b.get(i).getParamOffsetEnd()).isEqualTo(a.get(i).getParamOffsetEnd());
            assertThat(b.get(i).getGradientUpdater().getConfig())
                    .isEqualTo(a.get(i).getGradientUpdater().getConfig());
        }
    }

    @Test
    void aCheckpointWrittenBeforeTheKernelsResumesOnThemAndTrainsOnAlike() {
        ComputationGraph before = beforeTheKernels();
        before.fit(batch(1));
        before.fit(batch(2));
        CheckpointFiles.Contents old = checkpointOf(before);
        ComputationGraph now = install(ModelCompiler.build(GPT, TOKENS, 7, KernelUse.OWN));
        new ResumePoint(old).loadInto(now, 2);
        assertThat(now.params().toFloatVector()).isEqualTo(old.params());
        assertThat(now.getUpdater().getStateViewArray().toFloatVector()).isEqualTo(old.updaterState());

        DataSet next = batch(3);
        assertThat(now.score(next)).isCloseTo(before.score(next), within(1e-5 * before.score(next)));
        INDArray start = before.params().dup();
        for (int step = 0; step < 3; step++) {
            before.fit(next);
            now.fit(next);
        }
        // Adam's state misplaced would move the parameters by steps of another size (as much as the steps themselves)
        double moved = before.params().sub(start).norm2Number().doubleValue();
        double apart = now.params().sub(before.params()).norm2Number().doubleValue();
        assertThat(apart / moved).isLessThan(1e-2);
    }

    @Test
    void theReferencePathSpellsThePositionDropoutOutAndKeepsTheLayout() {
        ModelConfig.Gpt dropping = new ModelConfig.Gpt(16, 1, 2, 2, 0.1, false, null);
        ComputationGraph reference = install(ModelCompiler.build(dropping, TOKENS, 7, KernelUse.REFERENCE));
        ComputationGraph own = install(ModelCompiler.build(dropping, TOKENS, 7, KernelUse.OWN));
        assertThat(reference.getLayer("positions_sum").conf().getLayer().getClass())
                .isEqualTo(PositionEmbedding.class);
        assertThat(reference.getLayer("positions").conf().getLayer()).isInstanceOf(DropoutLayer.class);
        assertThat(reference.getLayer("tokens").conf().getLayer()).isNotInstanceOf(TokenEmbedding.class);
        assertThat(reference.getLayer("output").conf().getLayer()).isNotInstanceOf(SoftmaxSequenceHead.class);
        assertThat(((PositionEmbeddingKernel) own.getLayer("positions").conf().getLayer()).dropout())
                .isEqualTo(0.1);
        assertThat(own.params()).isEqualTo(reference.params());
        assertThat(own.getUpdater().getStateViewArray().length())
                .isEqualTo(reference.getUpdater().getStateViewArray().length());
    }
}
