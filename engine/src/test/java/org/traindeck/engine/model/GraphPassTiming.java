package org.traindeck.engine.model;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.deeplearning4j.nn.conf.CacheMode;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.WorkspaceMode;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.api.Configs;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.parallel.Tier;
import org.traindeck.engine.profile.GraphWalk;
import org.traindeck.engine.train.Nd4jRuntime;
import org.traindeck.engine.train.batch.BatchMaker;
import org.traindeck.engine.train.batch.StagePlan;
import org.traindeck.engine.train.batch.StageSetup;
import org.traindeck.engine.train.step.ShardGradient;
import org.traindeck.engine.train.step.TrainingStep;

/**
 * A measurement, not a test: what DL4J's gradient pass spends around the nodes, on the U-Net sample's network (batch
 * 32), the bench's LeNet (batch 64) or a config's first stage (the x-ray cascade, four of its batches in turn). First
 * DL4J's {@code computeGradientAndScore}, the profile's {@link GraphWalk} of it without clocks and the whole
 * {@link TrainingStep} (the pass and the optimizer update) on the same network and batches, alternated call by call in
 * rotating order: thread CPU medians and the median of the pairwise ratios to DL4J's pass, with their range. Then one
 * walk with the thread's CPU clock splits the pass: each node's forward and backward, the gradient sums where a node
 * feeds several, and the rest (DL4J's bookkeeping around the nodes). java -cp test-classes:classes:deps
 * org.traindeck.engine.model.GraphPassTiming unet|lenet|CONFIG [calls] [settings]; with {@code settings}, also
 * DL4J's pass on the same network and parameters without workspaces and without the cache mode TrainDeck sets.
 */
public final class GraphPassTiming {

    private static final int WARMUP = 40;

    private record Named(String name, ShardGradient.Pass pass) {}

    private GraphPassTiming() {}

    public static void main(String[] args) throws Exception {
        String which = args[0];
        int calls = args.length > 1 ? Integer.parseInt(args[1]) : 30;
        Nd4jRuntime.init();
        ComputationGraph net;
        List<BatchMaker.Batch> batches = new ArrayList<>();
        if (which.equals("unet") || which.equals("lenet")) {
            ConvStepTiming.Net n = ConvStepTiming.net(which);
            net = ConvStepTiming.built(
                    GraphFixture.model(n.layers(), Files.createTempDirectory("pass-timing")), n.input());
            batches.add(n.batch());
        } else {
            net = fromConfig(Path.of(which), batches);
        }
        List<Named> passes = new ArrayList<>();
        passes.add(new Named("dl4j", ShardGradient.Pass.DL4J));
        GraphWalk untimed = new GraphWalk(net, () -> 0L);
        passes.add(new Named("walk", (g, b) -> untimed.gradientAndScore(b.inputs(), new INDArray[] {b.labels()})));
        TrainingStep step = new TrainingStep(net, false);
        int[] iteration = {0};
        passes.add(new Named(
                "step", (g, b) -> step.step(List.of(b), iteration[0]++, 0, 0).loss()));
        if (args.length > 2 && args[2].equals("settings")) {
            ComputationGraph noWorkspaces = withSettings(net, WorkspaceMode.NONE, CacheMode.DEVICE);
            ComputationGraph noCache = withSettings(net, WorkspaceMode.ENABLED, CacheMode.NONE);
            passes.add(new Named("ws none", (g, b) -> ShardGradient.Pass.DL4J.run(noWorkspaces, b)));
            passes.add(new Named("no cache", (g, b) -> ShardGradient.Pass.DL4J.run(noCache, b)));
        }
        alternate(net, passes, batches, calls);
        walk(net, batches, calls);
        System.exit(0);
    }

    /** The same network and parameters with other workspace and cache modes (DL4J settings TrainDeck chooses). */
    private static ComputationGraph withSettings(ComputationGraph net, WorkspaceMode workspaces, CacheMode cache) {
        ComputationGraphConfiguration conf = net.getConfiguration().clone();
        conf.setTrainingWorkspaceMode(workspaces);
        conf.setInferenceWorkspaceMode(workspaces);
        ComputationGraph other = new ComputationGraph(conf);
        other.init(net.params().dup(), true);
        other.setCacheMode(cache);
        OneDnnHelpers.install(other);
        return other;
    }

    private static ComputationGraph fromConfig(Path path, List<BatchMaker.Batch> batches) throws Exception {
        RunConfig config = Configs.load(path).orThrow();
        StageSetup setup = new StageSetup(config, null);
        StagePlan plan = setup.plan(0);
        ModelInput input = ModelCompiler.inputOf(config.model(), plan.data.train());
        ComputationGraph net = ModelCompiler.build(config.model(), input, config.seed());
        plan.plan(Tier.SINGLE_DEVICE, 1, config.parallel(), 0, 0, 0);
        int[] order = BatchMaker.epochOrder(plan.data.train().size(), true, config.seed(), 0, 0);
        int mb = plan.stage.batchSize();
        for (int b = 0; b < 4; b++) {
            batches.add(plan.batches.batch(order, b, mb, config.seed(), 0, 0, true));
        }
        return net;
    }

    private static void alternate(ComputationGraph net, List<Named> passes, List<BatchMaker.Batch> batches, int calls) {
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        int k = passes.size();
        double[][] ms = new double[k][calls];
        for (int c = -WARMUP; c < calls; c++) {
            BatchMaker.Batch batch = batches.get(Math.floorMod(c, batches.size()));
            for (int j = 0; j < k; j++) {
                int p = (j + Math.max(c, 0)) % k;
                long t0 = threads.getCurrentThreadCpuTime();
                passes.get(p).pass().run(net, batch);
                long t1 = threads.getCurrentThreadCpuTime();
                if (c >= 0) {
                    ms[p][c] = (t1 - t0) / 1e6;
                }
            }
        }
        System.out.printf(Locale.ROOT, "gradient pass, thread CPU, %d calls each, alternated:%n", calls);
        for (int p = 0; p < k; p++) {
            double[] ratios = new double[calls];
            for (int c = 0; c < calls; c++) {
                ratios[c] = ms[p][c] / ms[0][c];
            }
            Arrays.sort(ratios);
            System.out.printf(
                    Locale.ROOT,
                    "  %-8s %9.3f ms (median)  / dl4j %.3f (%.3f-%.3f)%n",
                    passes.get(p).name(),
                    median(ms[p]),
                    ratios[calls / 2],
                    ratios[0],
                    ratios[calls - 1]);
        }
    }

    private static void walk(ComputationGraph net, List<BatchMaker.Batch> batches, int calls) {
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        GraphWalk walk = new GraphWalk(net, threads::getCurrentThreadCpuTime);
        for (int c = -WARMUP; c < calls; c++) {
            if (c == 0) {
                walk.reset();
            }
            BatchMaker.Batch b = batches.get(Math.floorMod(c, batches.size()));
            walk.gradientAndScore(b.inputs(), new INDArray[] {b.labels()});
        }
        List<String> names = walk.nodeNames();
        for (int i = 0; i < names.size(); i++) {
            System.out.printf(
                    Locale.ROOT,
                    "  %-16s %8.3f %8.3f%s%n",
                    names.get(i),
                    walk.forwardNs()[i] / 1e6 / calls,
                    walk.backwardNs()[i] / 1e6 / calls,
                    walk.isOutput(names.get(i)) ? "  (output: its forward is the loss)" : "");
        }
        long fwd = Arrays.stream(walk.forwardNs()).sum();
        long bwd = Arrays.stream(walk.backwardNs()).sum();
        long sums = walk.branchSumNs();
        long all = walk.walkNs();
        System.out.printf(
                Locale.ROOT,
                "walk (thread CPU clock), ms a pass: whole %.3f, nodes' forward %.3f, backward %.3f, sums at branches"
                        + " %.3f, the rest %.3f%n",
                all / 1e6 / calls,
                fwd / 1e6 / calls,
                bwd / 1e6 / calls,
                sums / 1e6 / calls,
                (all - fwd - bwd - sums) / 1e6 / calls);
    }

    private static double median(double[] a) {
        double[] s = a.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }
}
