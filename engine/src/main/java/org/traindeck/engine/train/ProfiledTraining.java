package org.traindeck.engine.train;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.graph.vertex.GraphVertex;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.StageConfig;
import org.traindeck.engine.model.ModelCompiler;
import org.traindeck.engine.model.OneDnnHelpers;
import org.traindeck.engine.parallel.Tier;
import org.traindeck.engine.profile.GraphWalk;
import org.traindeck.engine.profile.OpTimes;
import org.traindeck.engine.profile.StepProfile;
import org.traindeck.engine.schedule.Nd4jStageSchedule;
import org.traindeck.engine.train.batch.BatchMaker;
import org.traindeck.engine.train.batch.StagePlan;
import org.traindeck.engine.train.batch.StageSetup;
import org.traindeck.engine.train.step.GradientUpdate;
import org.traindeck.engine.train.step.LrScales;
import org.traindeck.engine.train.step.Optimizers;
import org.traindeck.engine.train.step.ShardGradient;
import org.traindeck.engine.train.step.StepSeeds;

/**
 * Training steps of a config's model on its own data, timed part by part ({@code traindeck profile}): the first
 * stage on one device, built, set up and stepped as a run's single-device step does (its batches, micro-batches,
 * optimizer, clipping and precision), with the gradient pass walked node by node ({@link GraphWalk}). Profiled steps
 * alternate with steps through DL4J's own pass, so the profile says what the walk costs. Writes no files.
 */
public final class ProfiledTraining {

    private final RunConfig config;
    /** Where both kinds of step are in the data and the schedule: they take turns on one network. */
    private int epoch;

    private int cursor;
    private int[] order;
    private long globalStep;

    public ProfiledTraining(RunConfig config) {
        this.config = config;
    }

    /** {@code warmup} untimed steps, then {@code steps} profiled ones; {@code ops}: then ND4J's op profile of as many. */
    public StepProfile run(int warmup, int steps, boolean ops) {
        Nd4jRuntime.init();
        try (StageSetup setup = new StageSetup(config, null, ModelCompiler.wantsImages(config.model()))) {
            StagePlan plan = setup.plan(0);
            ComputationGraph net = ModelCompiler.build(
                    config.model(), ModelCompiler.inputOf(config.model(), plan.data.train()), config.seed());
            if (net.getConfiguration().getDataType() != plan.dataType) {
                net = net.convertDataType(plan.dataType);
            }
            boolean oneDnn = config.performance().onednn()
                    && Nd4jRuntime.oneDnnUnavailableReason() == null
                    && OneDnnHelpers.unusableReason() == null
                    && OneDnnHelpers.install(net) > 0;
            plan.plan(Tier.SINGLE_DEVICE, 1, config.parallel(), 0, 0, 0);
            Optimizers.install(
                    net,
                    plan.stage.optimizer(),
                    new Nd4jStageSchedule(plan.schedule, plan.stageStart),
                    false,
                    LrScales.of(config.model()));
            // a synchronous step clips the global norm itself, as the run's single-device step does
            Optimizers.configureClipping(net, 0);
            return profile(net, plan, warmup, steps, ops, setting(plan, oneDnn));
        }
    }

    /** Alternates profiled steps with DL4J's own, then adds up where the profiled steps' time went. */
    private StepProfile profile(
            ComputationGraph net, StagePlan plan, int warmup, int steps, boolean ops, String setting) {
        GraphWalk walk = new GraphWalk(net);
        Stepper profiled =
                new Stepper(net, plan, (n, b) -> walk.gradientAndScore(b.inputs(), new INDArray[] {b.labels()}));
        Stepper dl4j = new Stepper(net, plan, ShardGradient.Pass.DL4J);
        for (int i = 0; i < warmup; i++) {
            (i % 2 == 0 ? profiled : dl4j).step();
        }
        walk.reset();
        profiled.resetClocks();
        dl4j.resetClocks();
        for (int i = 0; i < steps; i++) {
            profiled.step();
            dl4j.step();
        }
        List<StepProfile.OpTime> opTimes = ops
                ? OpTimes.during(() -> {
                    for (int i = 0; i < steps; i++) {
                        dl4j.step();
                    }
                })
                : List.of();
        List<StepProfile.Node> nodes = new ArrayList<>();
        List<String> names = walk.nodeNames();
        long[] fwd = walk.forwardNs();
        long[] bwd = walk.backwardNs();
        long inNodes = 0;
        for (int i = 0; i < names.size(); i++) {
            nodes.add(new StepProfile.Node(
                    names.get(i),
                    typeOf(net.getVertex(names.get(i))),
                    fwd[i] / 1e6 / steps,
                    bwd[i] / 1e6 / steps,
                    walk.isOutput(names.get(i))));
            inNodes += fwd[i] + bwd[i];
        }
        String model =
                String.format(Locale.ROOT, "%s (%,d parameters)", config.model().type(), net.numParams());
        return new StepProfile(
                model,
                setting,
                warmup,
                steps,
                profiled.totalNs / 1e6 / steps,
                dl4j.totalNs / 1e6 / steps,
                nodes,
                walk.branchSumNs() / 1e6 / steps,
                (walk.walkNs() - inNodes - walk.branchSumNs()) / 1e6 / steps,
                profiled.updateNs / 1e6 / steps,
                profiled.dataNs / 1e6 / steps,
                (profiled.totalNs - profiled.dataNs - profiled.updateNs - walk.walkNs()) / 1e6 / steps,
                opTimes,
                ops ? steps : 0);
    }

    private static String setting(StagePlan plan, boolean oneDnn) {
        StageConfig stage = plan.stage;
        return String.format(
                Locale.ROOT,
                "first stage \"%s\" on one device (ND4J %s backend%s), %s, %s, %s%s%s",
                stage.name(),
                Nd4jRuntime.backendKind(),
                threads(),
                plan.describeBatch(),
                stage.precision().json,
                stage.optimizer().type(),
                stage.clipNorm() > 0 ? ", gradient clipping " + stage.clipNorm() : "",
                oneDnn ? ", oneDNN helpers" : "");
    }

    private static String threads() {
        String omp = System.getenv("OMP_NUM_THREADS");
        return omp == null ? "" : ", OMP_NUM_THREADS=" + omp;
    }

    /** A node's type: its layer's configuration class, or the vertex's own class (add, merge, reshape, ...). */
    private static String typeOf(GraphVertex v) {
        return v.hasLayer()
                ? v.getLayer().conf().getLayer().getClass().getSimpleName()
                : v.getClass().getSimpleName();
    }

    /**
     * The run's single-device step (batches from the epoch's order, micro-batches, one update), each part clocked. A
     * profiler is used once: its steps go on from where the previous one left.
     */
    private final class Stepper {
        private final ComputationGraph net;
        private final StagePlan plan;
        private final ShardGradient shard;
        private final GradientUpdate update;
        long totalNs;
        long dataNs;
        long updateNs;

        Stepper(ComputationGraph net, StagePlan plan, ShardGradient.Pass pass) {
            this.net = net;
            this.plan = plan;
            this.shard = new ShardGradient(net, plan.stage.optimizer().weightDecay() > 0, pass);
            this.update = new GradientUpdate(net);
        }

        void resetClocks() {
            totalNs = 0;
            dataNs = 0;
            updateNs = 0;
        }

        void step() {
            long start = System.nanoTime();
            if (order == null || cursor >= plan.batchesPerEpoch) {
                if (order != null) {
                    epoch++;
                }
                order = BatchMaker.epochOrder(
                        plan.data.train().size(), config.dataFor(plan.stage).shuffle(), config.seed(), 0, epoch);
                cursor = 0;
            }
            int end = Math.min(cursor + plan.batchesPerStep, plan.batchesPerEpoch);
            List<BatchMaker.Batch> micro = new ArrayList<>();
            for (int b = cursor; b < end; b++) {
                micro.add(plan.batches.batch(order, b, plan.stage.batchSize(), config.seed(), 0, epoch, true));
            }
            cursor = end;
            long data = System.nanoTime();
            long before = globalStep;
            ShardGradient.Shard s = shard.compute(micro, j -> StepSeeds.of(config.seed(), before, j));
            long updating = System.nanoTime();
            update.apply(
                    s.lossSum(),
                    s.examples(),
                    s.microBatches(),
                    (int) before,
                    epoch,
                    plan.stage.clipNorm(),
                    false,
                    false,
                    null);
            long end2 = System.nanoTime();
            globalStep++;
            dataNs += data - start;
            updateNs += end2 - updating;
            totalNs += end2 - start;
        }
    }
}
