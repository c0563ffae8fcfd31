package org.traindeck.engine.train.step;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.schedule.ExponentialSchedule;
import org.nd4j.linalg.schedule.ISchedule;
import org.nd4j.linalg.schedule.ScheduleType;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.OptimizerConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.model.ModelCompiler;
import org.traindeck.engine.model.ModelInput;

/**
 * The fused step against DL4J's updater, step for step on the same gradients: parameters and optimizer state agree
 * within 1e-6 relative after a few steps, with a decaying schedule, an lr scale, L2 or decoupled weight decay,
 * clipping, BatchNorm statistics (NoOp blocks) and SameDiff layers.
 */
class FusedUpdateTest {

    private static final int STEPS = 6;

    record Model(String name, ModelConfig config, ModelInput input, String scaledNode) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Arguments> cases() {
        Model mlp = new Model(
                "mlp",
                new ModelConfig.Mlp(List.of(16, 8), ModelConfig.Activation.TANH, 0),
                new ModelInput(InputType.feedForward(10), Task.CLASSIFICATION, 3),
                "dense1");
        Model cnn = new Model(
                "lenet+batchNorm",
                new ModelConfig.LeNet(List.of(4, 6), 3, 16, ModelConfig.Activation.RELU, 0, true),
                new ModelInput(InputType.convolutional(12, 12, 1), Task.CLASSIFICATION, 3),
                "output");
        ModelInput tokens = ModelInput.tokens(20, 6, Task.SEQUENCE, 20);
        Model gpt = new Model("gpt", new ModelConfig.Gpt(16, 2, 2, 2, 0, false, null), tokens, "output");
        Model gptSameDiff =
                new Model("gpt on DL4J's layers", new ModelConfig.Gpt(16, 2, 2, 2, 0, false, "dl4j"), tokens, "output");
        OptimizerConfig adam = new OptimizerConfig("adam", 0.01, 0, 0.9, 0.99, 1e-7, 1e-3);
        OptimizerConfig adamw = new OptimizerConfig("adamw", 0.01, 0, 0.85, 0.999, 1e-8, 0.05);
        OptimizerConfig sgd = new OptimizerConfig("sgd", 0.05, 0, 0, 0, 0, 1e-3);
        return Stream.of(mlp, cnn, gpt, gptSameDiff)
                .flatMap(m ->
                        Stream.of(Arguments.of(m, adam, 0.0), Arguments.of(m, adamw, 0.5), Arguments.of(m, sgd, 0.5)));
    }

    private static ComputationGraph net(Model m, OptimizerConfig optimizer) {
        ComputationGraph net = ModelCompiler.build(m.config(), m.input(), 5);
        assertThat(net.getLayer(m.scaledNode()))
                .as("the node whose lr is scaled")
                .isNotNull();
        ISchedule lr = new ExponentialSchedule(ScheduleType.ITERATION, optimizer.learningRate(), 0.9);
        Optimizers.install(net, optimizer, lr, false, Map.of(m.scaledNode(), 0.5));
        backward(net, m.input());
        return net;
    }

    /** One real backward pass, so that the network has its gradient (the test then writes its own into the view). */
    private static void backward(ComputationGraph net, ModelInput input) {
        InputType type = input.input();
        int n = 4;
        INDArray features;
        INDArray labels;
        if (type instanceof InputType.InputTypeRecurrent r) {
            int vocab = (int) r.getSize();
            int length = (int) r.getTimeSeriesLength();
            features = Nd4j.createFromArray(new float[n][length]);
            labels = Nd4j.zeros(n, vocab, length);
            for (int i = 0; i < n; i++) {
                for (int t = 0; t < length; t++) {
                    features.putScalar(i, t, (i + t) % vocab);
                    labels.putScalar(new int[] {i, (i * 3 + t) % vocab, t}, 1);
                }
            }
        } else {
            long[] shape = type instanceof InputType.InputTypeConvolutional c
                    ? new long[] {n, c.getChannels(), c.getHeight(), c.getWidth()}
                    : new long[] {n, type.arrayElementsPerExample()};
            features = Nd4j.rand(shape);
            labels = Nd4j.zeros(n, input.outputs());
            for (int i = 0; i < n; i++) {
                labels.putScalar(i, i % input.outputs(), 1);
            }
        }
        net.setInputs(features);
        net.setLabels(labels);
        net.computeGradientAndScore();
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("cases")
    void theFusedStepIsDl4jsUpdater(Model m, OptimizerConfig optimizer, double clipNorm) {
        ComputationGraph reference = net(m, optimizer);
        ComputationGraph fused = net(m, optimizer);
        assertThat(FusedUpdate.plan(fused))
                .as("fused step covers %s with %s", m, optimizer.type())
                .isNotNull();
        GradientUpdate dl4j = new GradientUpdate(reference, false);
        GradientUpdate one = new GradientUpdate(fused, true);
        Random random = new Random(3);
        int examples = 8;
        for (int step = 0; step < STEPS; step++) {
            float[] gradient = new float[(int) reference.numParams()];
            for (int i = 0; i < gradient.length; i++) {
                gradient[i] = (float) (random.nextGaussian() * examples * (1 + step));
            }
            INDArray g = Nd4j.createFromArray(gradient);
            reference.getGradientsViewArray().assign(g);
            fused.getGradientsViewArray().assign(g);
            GradientUpdate.Result a = dl4j.apply(1.0, examples, 2, step + 3, 0, clipNorm, true, false, null);
            GradientUpdate.Result b = one.apply(1.0, examples, 2, step + 3, 0, clipNorm, true, false, null);
            assertThat(b.applied()).isEqualTo(a.applied());
            assertThat(b.clipped()).isEqualTo(a.clipped());
            assertThat(b.gradNorm()).isCloseTo(a.gradNorm(), org.assertj.core.api.Assertions.withinPercentage(1e-4));
        }
        assertClose(fused.params(), reference.params());
        assertClose(
                fused.getUpdater().getStateViewArray(), reference.getUpdater().getStateViewArray());
        if (clipNorm == 0) {
            // nothing rounds differently: the same float operations in the same order
            assertThat(fused.params().toFloatVector())
                    .containsExactly(reference.params().toFloatVector());
        }
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("cases")
    void theStepInPartsOnSeveralThreadsIsTheStepInOne(Model m, OptimizerConfig optimizer, double clipNorm)
            throws Exception {
        ComputationGraph whole = net(m, optimizer);
        ComputationGraph split = net(m, optimizer);
        GradientUpdate one = new GradientUpdate(whole, true);
        try (ReplicaThread a = new ReplicaThread("part-1", () -> {});
                ReplicaThread b = new ReplicaThread("part-2", () -> {})) {
            // three parts, two of them on threads of their own, as replicas run them
            GradientUpdate.Parts onThreads = task -> {
                a.post(() -> {
                    task.run(1, 3);
                    return null;
                });
                b.post(() -> {
                    task.run(2, 3);
                    return null;
                });
                task.run(0, 3);
                try {
                    a.await();
                    b.await();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            };
            GradientUpdate parts = new GradientUpdate(split, true, onThreads);
            Random random = new Random(5);
            for (int step = 0; step < STEPS; step++) {
                float[] gradient = new float[(int) whole.numParams()];
                for (int i = 0; i < gradient.length; i++) {
                    gradient[i] = (float) (random.nextGaussian() * 8 * (1 + step));
                }
                INDArray g = Nd4j.createFromArray(gradient);
                whole.getGradientsViewArray().assign(g);
                split.getGradientsViewArray().assign(g);
                GradientUpdate.Result x = one.apply(1.0, 8, 2, step, 0, clipNorm, true, false, null);
                GradientUpdate.Result y = parts.apply(1.0, 8, 2, step, 0, clipNorm, true, false, null);
                assertThat(y).isEqualTo(x);
            }
        }
        assertThat(split.params().toFloatVector())
                .containsExactly(whole.params().toFloatVector());
        INDArray state = whole.getUpdater().getStateViewArray();
        if (state != null) {
            // SGD has none
            assertThat(split.getUpdater().getStateViewArray().toFloatVector()).containsExactly(state.toFloatVector());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("beyondIt")
    void whatItDoesNotCoverStaysWithDl4jsUpdater(String what, OptimizerConfig optimizer, double perLayerClip) {
        Model mlp = new Model(
                "mlp",
                new ModelConfig.Mlp(List.of(8), ModelConfig.Activation.TANH, 0),
                new ModelInput(InputType.feedForward(5), Task.CLASSIFICATION, 2),
                "dense0");
        ComputationGraph net = net(mlp, optimizer);
        Optimizers.configureClipping(net, perLayerClip);
        assertThat(FusedUpdate.plan(net)).isNull();
        INDArray before = net.params().dup();
        GradientUpdate.Result r = new GradientUpdate(net, true).apply(1.0, 4, 1, 0, 0, 0, true, false, null);
        assertThat(r.applied()).isTrue();
        assertThat(net.params()).isNotEqualTo(before);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(floats = {Float.NaN, Float.POSITIVE_INFINITY})
    void aGradientThatIsNotFiniteIsNotAppliedWithoutClippingEither(float bad) {
        Model mlp = new Model(
                "mlp",
                new ModelConfig.Mlp(List.of(8), ModelConfig.Activation.RELU, 0),
                new ModelInput(InputType.feedForward(5), Task.CLASSIFICATION, 2),
                "dense0");
        ComputationGraph net = net(mlp, new OptimizerConfig("adam", 0.01, 0, 0.9, 0.999, 1e-8, 0));
        assertThat(FusedUpdate.plan(net)).isNotNull();
        net.getGradientsViewArray().putScalar(net.numParams() - 1, bad);
        INDArray before = net.params().dup();
        INDArray state = net.getUpdater().getStateViewArray().dup();
        GradientUpdate.Result r = new GradientUpdate(net, true).apply(1.0, 4, 1, 0, 0, 0, true, false, null);
        assertThat(r.applied()).isFalse();
        assertThat(Double.isFinite(r.gradNorm()))
                .as("the reported norm %s", r.gradNorm())
                .isFalse();
        assertThat(net.params()).isEqualTo(before);
        assertThat(net.getUpdater().getStateViewArray()).isEqualTo(state);
    }

    static Stream<Arguments> beyondIt() {
        return Stream.of(
                Arguments.of("nesterovs", new OptimizerConfig("nesterovs", 0.01, 0.9, 0, 0, 0, 0), 0.0),
                Arguments.of("rmsprop", new OptimizerConfig("rmsprop", 0.01, 0, 0, 0, 1e-8, 0), 0.0),
                Arguments.of("per-layer clipping", new OptimizerConfig("adam", 0.01, 0, 0.9, 0.999, 1e-8, 0), 1.0));
    }

    private static void assertClose(INDArray actual, INDArray expected) {
        if (expected == null) {
            assertThat(actual).isNull();
            return;
        }
        float[] a = actual.toFloatVector();
        float[] e = expected.toFloatVector();
        assertThat(a).hasSameSizeAs(e);
        // relative to the value, or to the array's RMS for values near zero (a difference of a few float steps of the
        // value before a cancellation is no disagreement)
        double sum = 0;
        for (float v : e) {
            sum += (double) v * v;
        }
        double rms = Math.sqrt(sum / Math.max(1, e.length));
        double worst = 0;
        int at = -1;
        for (int i = 0; i < e.length; i++) {
            double diff = Math.abs(a[i] - e[i]) / Math.max(Math.abs(e[i]), rms);
            if (diff > worst) {
                worst = diff;
                at = i;
            }
        }
        assertThat(worst)
                .as("worst relative difference at %d: %s vs %s", at, at < 0 ? 0 : a[at], at < 0 ? 0 : e[at])
                .isLessThan(1e-6);
    }
}
