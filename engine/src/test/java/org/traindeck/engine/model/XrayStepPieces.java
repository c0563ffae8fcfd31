package org.traindeck.engine.model;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.api.Configs;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.parallel.Tier;
import org.traindeck.engine.profile.GraphWalk;
import org.traindeck.engine.schedule.Nd4jStageSchedule;
import org.traindeck.engine.train.Nd4jRuntime;
import org.traindeck.engine.train.batch.BatchMaker;
import org.traindeck.engine.train.batch.StagePlan;
import org.traindeck.engine.train.batch.StageSetup;
import org.traindeck.engine.train.step.GradientUpdate;
import org.traindeck.engine.train.step.LrScales;
import org.traindeck.engine.train.step.Optimizers;

/**
 * A measurement, not a test: where a config's first-stage step goes in thread CPU, after a long warm-up (so that the
 * JIT has compiled the Java kernels, which a few-step `traindeck profile` does not give it): each node's forward and
 * backward, the gradient sums at branches and DL4J's bookkeeping (the graph walked as {@link GraphWalk}), making a
 * training batch of the real data (noise and x_t for a diffusion task), and the run's optimizer update
 * ({@link GradientUpdate}), and the Java heap a whole step allocates on the training thread. java -cp test-classes:classes:deps org.traindeck.engine.model.XrayStepPieces CONFIG [steps]
 */
public final class XrayStepPieces {

    private static final int WARMUP = 80;

    private XrayStepPieces() {}

    public static void main(String[] args) {
        Nd4jRuntime.init();
        RunConfig config = Configs.load(Path.of(args[0])).orThrow();
        int steps = args.length > 1 ? Integer.parseInt(args[1]) : 60;
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (StageSetup setup = new StageSetup(config, null)) {
            StagePlan plan = setup.plan(0);
            ModelInput input = ModelCompiler.inputOf(config.model(), plan.data.train());
            ComputationGraph net = ModelCompiler.build(config.model(), input, config.seed());
            plan.plan(Tier.SINGLE_DEVICE, 1, config.parallel(), 0, 0, 0);
            Optimizers.install(
                    net,
                    plan.stage.optimizer(),
                    new Nd4jStageSchedule(plan.schedule, plan.stageStart),
                    false,
                    LrScales.of(config.model()));
            Optimizers.configureClipping(net, 0);
            int[] order = BatchMaker.epochOrder(plan.data.train().size(), true, config.seed(), 0, 0);
            int mb = plan.stage.batchSize();
            int batches = plan.batches.batchesPerEpoch(mb);
            GraphWalk walk = new GraphWalk(net, threads::getCurrentThreadCpuTime);
            long[] data = new long[steps];
            long[] optimizer = new long[steps];
            GradientUpdate update = new GradientUpdate(net);
            long[] pass = new long[steps];
            long[] allocated = new long[steps];
            for (int i = -WARMUP; i < steps; i++) {
                int b = Math.floorMod(i, batches);
                long a0 = threads.getCurrentThreadAllocatedBytes();
                long t0 = threads.getCurrentThreadCpuTime();
                BatchMaker.Batch batch = plan.batches.batch(order, b, mb, config.seed(), 0, 0, true);
                long t1 = threads.getCurrentThreadCpuTime();
                if (i == 0) {
                    walk.reset();
                }
                double loss = walk.gradientAndScore(batch.inputs(), new INDArray[] {batch.labels()});
                long t2 = threads.getCurrentThreadCpuTime();
                update.apply(loss * batch.size(), batch.size(), 1, i + WARMUP, 0, 0, false, false, null);
                long t3 = threads.getCurrentThreadCpuTime();
                long a1 = threads.getCurrentThreadAllocatedBytes();
                if (i >= 0) {
                    data[i] = t1 - t0;
                    pass[i] = t2 - t1;
                    optimizer[i] = t3 - t2;
                    allocated[i] = a1 - a0;
                }
            }
            print(walk, steps, data, optimizer, pass);
            System.out.printf(Locale.ROOT, "%-24s %9.3f (median)%n", "heap MB a step", median(allocated) / 1e6);
        }
        System.exit(0);
    }

    private static void print(GraphWalk walk, int steps, long[] data, long[] optimizer, long[] pass) {
        List<String> names = walk.nodeNames();
        long[] fwd = walk.forwardNs();
        long[] bwd = walk.backwardNs();
        long inNodes = 0;
        System.out.printf(Locale.ROOT, "%-24s %9s %9s%n", "node", "fwd ms", "bwd ms");
        for (int i = 0; i < names.size(); i++) {
            if (fwd[i] + bwd[i] > 0) {
                System.out.printf(
                        Locale.ROOT, "%-24s %9.3f %9.3f%n", names.get(i), ms(fwd[i], steps), ms(bwd[i], steps));
            }
            inNodes += fwd[i] + bwd[i];
        }
        System.out.printf(Locale.ROOT, "%-24s %9.3f%n", "gradient sums", ms(walk.branchSumNs(), steps));
        System.out.printf(
                Locale.ROOT,
                "%-24s %9.3f%n",
                "graph bookkeeping",
                ms(walk.walkNs() - inNodes - walk.branchSumNs(), steps));
        System.out.printf(Locale.ROOT, "%-24s %9.3f (median)%n", "gradient pass", median(pass) / 1e6);
        System.out.printf(Locale.ROOT, "%-24s %9.3f (median)%n", "optimizer update", median(optimizer) / 1e6);
        System.out.printf(Locale.ROOT, "%-24s %9.3f (median)%n", "batch making", median(data) / 1e6);
    }

    private static double ms(long ns, int steps) {
        return ns / 1e6 / steps;
    }

    private static double median(long[] values) {
        long[] s = values.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }
}
