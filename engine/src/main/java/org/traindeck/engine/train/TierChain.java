package org.traindeck.engine.train;

import java.util.List;
import java.util.function.Consumer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.model.SyncBatchNorms;
import org.traindeck.engine.parallel.CudaPeerAccess;
import org.traindeck.engine.parallel.DevicePlacement;
import org.traindeck.engine.parallel.DistributedSession;
import org.traindeck.engine.parallel.Tier;
import org.traindeck.engine.parallel.TierFailure;
import org.traindeck.engine.schedule.Nd4jStageSchedule;
import org.traindeck.engine.train.batch.StagePlan;
import org.traindeck.engine.train.callback.TrainingCallback;
import org.traindeck.engine.train.health.LayerWatch;
import org.traindeck.engine.train.state.RunEvents;
import org.traindeck.engine.train.state.RunFailure;
import org.traindeck.engine.train.state.TrainingState;
import org.traindeck.engine.train.step.AllReduceStep;
import org.traindeck.engine.train.step.AveragingRounds;
import org.traindeck.engine.train.step.ClusterSessions;
import org.traindeck.engine.train.step.DistributedStep;
import org.traindeck.engine.train.step.LrScales;
import org.traindeck.engine.train.step.Optimizers;
import org.traindeck.engine.train.step.ReplicaSet;
import org.traindeck.engine.train.step.SingleDeviceStep;
import org.traindeck.engine.train.step.StepStrategy;

/**
 * The fallback chain: the tier a stage is trained on, its step strategy, and the move to the next tier when one
 * fails (all-reduce over P2P → all-reduce through the host → one device), going on from the last consistent state.
 * A cluster run's session lives here for the whole run: its executors start once, and each stage after the first
 * is sent to them; it is closed when the run ends (finished, stopped or failed) or its tier fails.
 */
public final class TierChain implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TierChain.class);

    /** Makes the step strategy of a tier: tests give one that drives the policies without training. */
    interface StrategyFactory {
        StepStrategy create(Tier tier, ComputationGraph net, StagePlan plan);
    }

    private final List<Tier> chain;
    private final RunConfig config;
    private final DevicePlacement placement;
    private final RunEvents events;
    private final TrainingCallback callbacks;
    private final boolean cuda;
    private final Consumer<ComputationGraph> onEveryModel;
    private final StrategyFactory strategies;
    private final LayerWatch layerWatch;
    private int index;
    private StepStrategy strategy;
    private DistributedSession cluster;
    private boolean syncNoted;

    /** @param strategies null for the real ones */
    TierChain(
            RunConfig config,
            DevicePlacement placement,
            RunEvents events,
            TrainingCallback callbacks,
            boolean cuda,
            Consumer<ComputationGraph> onEveryModel,
            StrategyFactory strategies) {
        this.chain = config.parallel().onCluster()
                ? Tier.clusterChain()
                : Tier.chain(
                        placement.workers(),
                        config.parallel().mode(),
                        config.nccl().p2pDisabled(),
                        config.parallel().fallback());
        this.config = config;
        this.placement = placement;
        this.events = events;
        this.callbacks = callbacks;
        this.cuda = cuda;
        this.onEveryModel = onEveryModel;
        this.strategies = strategies == null ? this::create : strategies;
        this.layerWatch = new LayerWatch(config.logging().layers());
    }

    /** Plans the stage on the current tier and installs its optimizer (keeping the optimizer state if asked). */
    void plan(ComputationGraph net, StagePlan plan, TrainingState state, boolean keepOptimizerState) {
        Tier tier = chain.get(index);
        if (tier == Tier.DISTRIBUTED) {
            plan.plan(
                    tier,
                    config.parallel().executors(),
                    config.parallel(),
                    state.epoch,
                    state.cursor,
                    state.globalStep);
            plan.devices = config.parallel().executors() + " executors of "
                    + config.parallel().cluster();
        } else {
            plan.plan(tier, placement.workers(), config.parallel(), state.epoch, state.cursor, state.globalStep);
            plan.devices = tier.parallel()
                    ? String.join(", ", placement.deviceIds())
                    : placement.deviceIds().get(0);
        }
        Optimizers.install(
                net,
                plan.stage.optimizer(),
                new Nd4jStageSchedule(plan.schedule, plan.stageStart),
                keepOptimizerState,
                LrScales.of(config.modelAt(plan.index)));
        // ParallelWrapper's workers fit with DL4J's own fit, which can only clip per layer; the synchronous tiers clip
        // globally
        Optimizers.configureClipping(net, tier.synchronous() ? 0 : plan.stage.clipNorm());
        net.getConfiguration().setIterationCount((int) state.globalStep);
        layerWatch.stageEndsAt(plan.stageStart + plan.schedule.totalSteps());
    }

    /** Starts the planned tier's strategy, falling back along the chain while tiers cannot be set up. */
    StepStrategy open(ComputationGraph net, StagePlan plan, TrainingState state) {
        while (true) {
            Tier tier = plan.tier;
            String why = plan.workers > 1
                            && placement.sharedMemory()
                            && (tier == Tier.SYNC_P2P || tier == Tier.AVERAGING_P2P)
                    ? " (on the CPU, workers share memory: there is no peer-to-peer copy to use or avoid)"
                    : "";
            events.lifecycle(LifecycleEvent.Kind.TIER_STARTED, "training with " + plan.describeTier() + why);
            callbacks.onTierStart(state, plan);
            try {
                if (state.faults.failsTier(tier)) {
                    throw new TierFailure("injected failure setting up " + tier.description, true, null);
                }
                strategy = strategies.create(tier, net, plan);
                noteUnsynchronizedBatchNorm(tier, net, plan);
                return strategy;
            } catch (TierFailure failure) {
                callbacks.onTierFailure(state, plan);
                next(net, plan, state, failure);
            }
        }
    }

    /** Synchronized BatchNorm applies to the synchronous tiers on several devices: said once a run where it does not. */
    private void noteUnsynchronizedBatchNorm(Tier tier, ComputationGraph net, StagePlan plan) {
        if (syncNoted || tier == Tier.DISTRIBUTED || (tier.synchronous() && tier.parallel() && plan.workers > 1)) {
            return;
        }
        List<String> synced = SyncBatchNorms.in(net);
        if (synced.isEmpty()) {
            return;
        }
        syncNoted = true;
        events.logLine(
                tier.parallel()
                        ? "synchronized BatchNorm (" + String.join(", ", synced) + ") does not apply to "
                                + tier.description
                                + ": each worker steps on its own batch statistics (use parallel.mode \"sync\" for synchronized statistics)"
                        : "synchronized BatchNorm (" + String.join(", ", synced)
                                + ") has no effect on one device: its batch already holds "
                                + "every example of the step's round");
    }

    /** The current tier failed while training: go on with the next one from the state as it now is. */
    StepStrategy fallBack(ComputationGraph net, StagePlan plan, TrainingState state, TierFailure failure) {
        callbacks.onTierFailure(state, plan);
        next(net, plan, state, failure);
        return open(net, plan, state);
    }

    private void next(ComputationGraph net, StagePlan plan, TrainingState state, TierFailure failure) {
        close();
        Tier failed = plan.tier;
        if (index + 1 >= chain.size()) {
            throw new RunFailure(
                    "every way of training failed; the last, " + failed.description + ": " + failure.getMessage()
                            + (config.parallel().fallback()
                                    ? ""
                                    : " (fallback is off: \"parallel\": {\"fallback\": true} lets the run go on with fewer devices)"));
        }
        index++;
        LOG.warn("tier {} failed: {}", failed, failure.getMessage(), failure.getCause());
        plan(net, plan, state, true);
        events.lifecycle(
                LifecycleEvent.Kind.FALLBACK,
                failed.description + " failed (" + failure.getMessage() + "): going on with " + plan.tier.description
                        + " from step " + state.globalStep + ", " + plan.describeBatch());
    }

    private StepStrategy create(Tier tier, ComputationGraph net, StagePlan plan) {
        long seed = config.seed();
        int every = config.logging().everySteps();
        return switch (tier) {
            case SINGLE_DEVICE ->
                new SingleDeviceStep(
                        net,
                        plan,
                        seed,
                        every,
                        config.parallel().prefetch(),
                        () -> placement.attachCurrentThread(0),
                        layerWatch);
            case SYNC_P2P, SYNC_HOST -> {
                crossDeviceAccess(tier == Tier.SYNC_P2P);
                yield new AllReduceStep(
                        new ReplicaSet(net, placement, config.name(), onEveryModel),
                        plan,
                        seed,
                        every,
                        config.parallel().baselineSamplesPerSecond(),
                        // each GPU replica makes its own batches on its device; CPU workers can share one loader
                        placement.sharedMemory() ? config.parallel().prefetch() : 0,
                        layerWatch);
            }
            case SHARED_GRADIENTS, AVERAGING_P2P, AVERAGING_NO_P2P -> {
                crossDeviceAccess(tier == Tier.AVERAGING_P2P);
                if (layerWatch.config().figuresOn() || layerWatch.config().histogramsOn()) {
                    // each worker steps on its own gradient: there is no one gradient or update per step to look at
                    events.logLine(
                            "per-layer figures and histograms are not taken on " + tier.description
                                    + " (ParallelWrapper has no summed gradient); the synchronous tiers and one device take them");
                }
                yield new AveragingRounds(net, config.parallel(), seed, events);
            }
            case DISTRIBUTED -> new DistributedStep(clusterFor(net, plan), net, seed, every, layerWatch);
        };
    }

    /** The run's cluster session: opened for its first stage, then given each next stage. */
    private DistributedSession clusterFor(ComputationGraph net, StagePlan plan) {
        if (cluster == null) {
            cluster = ClusterSessions.open(config, net, plan, events);
        } else {
            ClusterSessions.nextStage(cluster, config, net, plan, events);
        }
        return cluster;
    }

    /** Peer-to-peer copies between GPUs, after a self-test (broken P2P can silently return zeros), or through the host. */
    private void crossDeviceAccess(boolean p2p) {
        if (!cuda) {
            return;
        }
        if (p2p) {
            String problem = CudaPeerAccess.selfTestAndConfigure(placement);
            if (problem != null) {
                throw new TierFailure("peer-to-peer self-test: " + problem, true, null);
            }
        } else {
            placement.allowCrossDeviceAccess(false);
        }
    }

    /** The stage is done: its strategy ends, a cluster session stays for the next stage. */
    void endStage() {
        if (strategy != null) {
            strategy.close();
            strategy = null;
        }
    }

    /** The run ends, or the tier failed: the strategy and a cluster session end. */
    @Override
    public void close() {
        endStage();
        if (cluster != null) {
            DistributedSession session = cluster;
            cluster = null;
            session.close();
        }
    }
}
