package org.traindeck.engine.train.step;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.schedule.FixedSchedule;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.OptimizerConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.model.ModelCompiler;
import org.traindeck.engine.model.ModelInput;

/**
 * A measurement, not a test: the MLP (784-256-128-10, batch 128) and the text sample's GPT (width 64, 2 blocks, 4 heads,
 * context 64, batch 32) stepping with the fused update and with DL4J's updater, alternated step by step on two copies
 * of the same network; prints the medians of the step and of the update alone, and of the pairwise ratios.
 * Run: java -cp test-classes:classes:deps org.traindeck.engine.train.step.FusedStepTiming [rounds]
 */
public final class FusedStepTiming {

    private FusedStepTiming() {}

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 60;
        OptimizerConfig adamw = new OptimizerConfig("adamw", 1e-3, 0, 0.9, 0.999, 1e-8, 0.01);
        time(
                "mlp 784-256-128-10, batch 128",
                new ModelConfig.Mlp(List.of(256, 128), ModelConfig.Activation.RELU, 0),
                new ModelInput(InputType.feedForward(784), Task.CLASSIFICATION, 10),
                128,
                adamw,
                rounds);
        ModelInput tokens = ModelInput.tokens(65, 64, Task.SEQUENCE, 65);
        time(
                "gpt width 64, 2 blocks, 4 heads, context 64, batch 32",
                new ModelConfig.Gpt(64, 2, 4, 4, 0, false, null),
                tokens,
                32,
                adamw,
                rounds);
    }

    private static void time(
            String name, ModelConfig model, ModelInput input, int batch, OptimizerConfig optimizer, int rounds) {
        ComputationGraph a = ModelCompiler.build(model, input, 5);
        ComputationGraph b = ModelCompiler.build(model, input, 5);
        Optimizers.install(a, optimizer, new FixedSchedule(optimizer.learningRate()), false);
        Optimizers.install(b, optimizer, new FixedSchedule(optimizer.learningRate()), false);
        INDArray[] data = data(input, batch);
        for (ComputationGraph n : List.of(a, b)) {
            n.setInputs(data[0]);
            n.setLabels(data[1]);
        }
        GradientUpdate fused = new GradientUpdate(a, true);
        GradientUpdate dl4j = new GradientUpdate(b, false);
        List<double[]> rows = new ArrayList<>();
        for (int r = 0; r < rounds + 10; r++) {
            double[] fa = step(a, fused, batch, r);
            double[] fb = step(b, dl4j, batch, r);
            if (r >= 10) {
                rows.add(new double[] {fa[0], fa[1], fb[0], fb[1]});
            }
        }
        System.out.printf(Locale.ROOT, "%s, %d params, %d alternated rounds%n", name, a.numParams(), rounds);
        report("  step   fused / dl4j ms", rows, 0, 2);
        report("  update fused / dl4j ms", rows, 1, 3);
    }

    /** [whole step ms, update ms] */
    private static double[] step(ComputationGraph net, GradientUpdate update, int batch, int iteration) {
        long t0 = System.nanoTime();
        net.computeGradientAndScore();
        long t1 = System.nanoTime();
        update.apply(net.score() * batch, batch, 1, iteration, 0, 0, true, false, null);
        long t2 = System.nanoTime();
        return new double[] {(t2 - t0) / 1e6, (t2 - t1) / 1e6};
    }

    private static void report(String label, List<double[]> rows, int fused, int dl4j) {
        double[] f = rows.stream().mapToDouble(r -> r[fused]).toArray();
        double[] d = rows.stream().mapToDouble(r -> r[dl4j]).toArray();
        double[] ratio = rows.stream().mapToDouble(r -> r[dl4j] / r[fused]).toArray();
        System.out.printf(
                Locale.ROOT,
                "%s: %.3f / %.3f; dl4j/fused median %.2fx (min %.2f, max %.2f)%n",
                label,
                median(f),
                median(d),
                median(ratio),
                Arrays.stream(ratio).min().orElse(0),
                Arrays.stream(ratio).max().orElse(0));
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    private static INDArray[] data(ModelInput input, int n) {
        Random random = new Random(1);
        if (input.input() instanceof InputType.InputTypeRecurrent r) {
            int vocab = (int) r.getSize();
            int length = (int) r.getTimeSeriesLength();
            INDArray features = Nd4j.create(n, length);
            INDArray labels = Nd4j.zeros(n, vocab, length);
            for (int i = 0; i < n; i++) {
                for (int t = 0; t < length; t++) {
                    features.putScalar(i, t, random.nextInt(vocab));
                    labels.putScalar(new int[] {i, random.nextInt(vocab), t}, 1);
                }
            }
            return new INDArray[] {features, labels};
        }
        INDArray features = Nd4j.rand(new long[] {n, input.input().arrayElementsPerExample()});
        INDArray labels = Nd4j.zeros(n, input.outputs());
        for (int i = 0; i < n; i++) {
            labels.putScalar(i, random.nextInt(input.outputs()), 1);
        }
        return new INDArray[] {features, labels};
    }
}
