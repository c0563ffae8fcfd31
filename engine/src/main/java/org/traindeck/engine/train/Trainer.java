package org.traindeck.engine.train;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.schedule.FixedSchedule;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.OptimizerConfig;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.StageConfig;
import org.traindeck.engine.config.read.ConfigWriter;
import org.traindeck.engine.data.DataLoader;
import org.traindeck.engine.data.Dataset;
import org.traindeck.engine.data.InputSignature;
import org.traindeck.engine.data.SampleShape;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.model.ModelCompiler;
import org.traindeck.engine.model.ModelInput;
import org.traindeck.engine.model.kernels.KernelChoices;
import org.traindeck.engine.model.kernels.KernelUse;
import org.traindeck.engine.parallel.DevicePlacement;
import org.traindeck.engine.parallel.TierFailure;
import org.traindeck.engine.train.batch.BatchMaker;
import org.traindeck.engine.train.batch.PreparedStart;
import org.traindeck.engine.train.batch.StagePlan;
import org.traindeck.engine.train.batch.StageSetup;
import org.traindeck.engine.train.callback.Callbacks;
import org.traindeck.engine.train.callback.CheckpointStop;
import org.traindeck.engine.train.callback.TrainingCallback;
import org.traindeck.engine.train.callback.ValidationStopped;
import org.traindeck.engine.train.resume.ResumePoint;
import org.traindeck.engine.train.state.RunEvents;
import org.traindeck.engine.train.state.RunFailure;
import org.traindeck.engine.train.state.StartWork;
import org.traindeck.engine.train.state.StepReport;
import org.traindeck.engine.train.state.TrainingFaults;
import org.traindeck.engine.train.state.TrainingState;
import org.traindeck.engine.train.step.LossPositions;
import org.traindeck.engine.train.step.Optimizers;
import org.traindeck.engine.train.step.StepStrategy;
import org.traindeck.engine.weights.InitReport;

/**
 * Walks a run's stages, epochs and steps over its {@link TrainingState}: builds the model, sets each stage up, asks
 * the tier's step strategy for steps, and calls the policies ({@link TrainingCallback}) at their hooks. It drives
 * epochs, the global step and the schedule itself, never DL4J's counters, so a run can be stopped between two steps
 * and resumed exactly.
 */
final class Trainer {

    /** How the loop ended. */
    record Ending(RunResult.Status status, String message) {}

    private final RunConfig config;
    private final TrainingState state;
    private final RunEvents events;
    private final DevicePlacement placement;
    private final ResumePoint resume;
    private final boolean cuda;
    private final Consumer<ComputationGraph> prepareModel;
    private final TierChain.StrategyFactory strategies;
    private PreparedStart start;
    private StartWork work = StartWork.NONE;
    private ComputationGraph net;
    private String fingerprint;
    private int networkStart;
    private int lossPositions = 1;
    private InitReport startingWeights;

    /**
     * @param faults       a test's faults ({@link TrainingFaults#NONE} in production)
     * @param prepareModel what TrainDeck does to every model it trains, replicas and rebuilt models included
     * @param strategies   null for the real step strategies; tests pass fakes
     */
    Trainer(
            RunConfig config,
            TrainingState state,
            RunEvents events,
            DevicePlacement placement,
            TrainingFaults faults,
            ResumePoint resume,
            boolean cuda,
            Consumer<ComputationGraph> prepareModel,
            TierChain.StrategyFactory strategies) {
        this.config = config;
        this.state = state;
        this.events = events;
        this.placement = placement;
        // the tier chain and the step strategies find the faults in the state they are handed
        state.faults = faults;
        this.resume = resume;
        this.cuda = cuda;
        this.prepareModel = prepareModel;
        this.strategies = strategies;
    }

    /**
     * @param start the model compiled when the run was prepared, used when it fits this run's first stage; or null
     * @param work  told when the model is compiled here
     */
    Trainer withPrepared(PreparedStart start, StartWork work) {
        this.start = start;
        this.work = work;
        return this;
    }

    ComputationGraph net() {
        return net;
    }

    /** The architecture and data shape the parameters belong to (known once the model is built). */
    String fingerprint() {
        return fingerprint;
    }

    /**
     * Builds the network the run starts with (a resumed run's: the one of its checkpoint's stage) from the data of the
     * stage that network starts in; call before {@link #train}.
     */
    void buildModel(StageSetup setup) {
        int stage = resume == null
                ? 0
                : Math.min(resume.checkpoint().stageIndex(), config.stages().size() - 1);
        buildNetwork(setup, config.networkStart(stage), resume == null);
    }

    /** Builds the network stage {@code first} starts, from its own initialisation (and its "init" when fresh). */
    private void buildNetwork(StageSetup setup, int first, boolean fresh) {
        DataLoader.Loaded data = setup.load(first);
        ModelConfig model = config.modelAt(first);
        ModelInput shape = ModelCompiler.inputOf(model, data.train());
        // the kernels read host memory: on CUDA the DL4J layers they replace (same parameters)
        KernelUse kernels = cuda ? KernelUse.REFERENCE : KernelUse.OWN;
        if (first == 0 && start != null && start.loaded() == data && start.kernels() == kernels) {
            net = ModelCompiler.instantiate(start.model());
        } else {
            work.modelCompiled();
            net = ModelCompiler.build(
                    model, shape, config.seed(), kernels, config.parallel().syncBatchNorm());
        }
        start = null; // the configuration now belongs to the network
        startingWeights = fresh && model.init() != null ? StartingWeightsStep.load(config, first, net, events) : null;
        prepareModel.accept(net);
        networkStart = first;
        fingerprint = ConfigWriter.modelJson(KernelChoices.withoutChoices(model)) + "|" + dataShape(data.train());
        lossPositions = LossPositions.of(data.train());
        events.logLine(
                (first == 0 ? "model " : "stage " + config.stages().get(first).name() + "'s model ")
                        + model.type() + ": " + net.numParams() + " parameters; data: " + data.train()
                        + (data.validation() == null
                                ? ", no validation"
                                : "; validation " + data.validation().size() + " samples"));
    }

    /** The data's shape as checkpoints have always recorded it, so that their fingerprints keep matching. */
    static String dataShape(Dataset d) {
        if (d.namedInputs()) {
            return "Shape[named, outputs=" + d.outputCount() + ", task="
                    + d.task().name() + ", targets=" + d.targetLength() + ", inputs="
                    + InputSignature.encode(InputSignature.of(d.inputs())) + "]";
        }
        String shape = "Shape[featureCount=" + d.featureCount() + ", image=" + d.imageShape() + ", outputs="
                + d.outputCount() + ", task=" + d.task().name() + "]";
        if (!(d.shape() instanceof SampleShape.Flat) && !(d.shape() instanceof SampleShape.Image)) {
            shape += "[shape=" + d.shape() + ", targets=" + d.targetLength() + "]";
        }
        return d.vocabulary() == null
                ? shape
                : shape
                        + ResumePoint.VOCABULARY
                        + String.join("\u0000", d.vocabulary().tokens());
    }

    Ending train(StageSetup setup, Callbacks callbacks) {
        List<StageConfig> stages = config.stages();
        String devices = String.join(", ", placement.deviceIds());
        int firstStage = 0;
        if (resume != null) {
            resume.checkModel(fingerprint, net.numParams());
            firstStage = resume.firstStage(stages);
            if (firstStage >= stages.size()) {
                String done = "the run already finished at step " + state.globalStep
                        + ": give more epochs (--epochs N) or a config with more stages";
                events.lifecycle(LifecycleEvent.Kind.RUN_FINISHED, done);
                return new Ending(RunResult.Status.FINISHED, done);
            }
            events.lifecycle(
                    LifecycleEvent.Kind.RUN_RESUMED,
                    "resumed " + config.modelAt(networkStart).type() + " (" + net.numParams()
                            + " parameters) at step " + state.globalStep + " from " + state.lastCheckpoint.getFileName()
                            + ", on " + devices
                            + "; files in " + events.runDir());
        } else {
            events.lifecycle(
                    LifecycleEvent.Kind.RUN_STARTED,
                    "training " + config.modelAt(0).type() + " (" + net.numParams() + " parameters) on " + devices
                            + ", " + stages.size() + " stage(s); files in " + events.runDir());
            if (startingWeights != null) {
                StartingWeightsStep.announce(startingWeights, events);
            }
        }
        try (TierChain tiers = new TierChain(config, placement, events, callbacks, cuda, prepareModel, strategies)) {
            OptimizerConfig previous =
                    firstStage > 0 ? stages.get(firstStage - 1).optimizer() : null;
            for (int s = firstStage; s < stages.size(); s++) {
                if (config.startsNetwork(s) && s != networkStart) {
                    // a stage with a model of its own trains a new network, as if the run started there
                    buildNetwork(setup, s, true);
                    if (startingWeights != null) {
                        StartingWeightsStep.announce(startingWeights, events);
                    }
                    previous = null;
                }
                // a resume into a stage that starts its own network takes nothing from the previous stage's checkpoint
                boolean resuming =
                        s == firstStage && resume != null && (resume.continuesInItsStage(s) || networkStart != s);
                Ending stopped = trainStage(setup, callbacks, tiers, s, previous, resuming);
                if (stopped != null) {
                    return stopped;
                }
                previous = stages.get(s).optimizer();
            }
        } catch (CheckpointStop stop) {
            String message = "stopped at step " + state.globalStep
                    + " because a checkpoint could not be written (checkpoint.onWriteError: stop)";
            events.lifecycle(LifecycleEvent.Kind.RUN_STOPPED, message);
            return new Ending(RunResult.Status.STOPPED, message);
        }
        state.stageIndex = stages.size() - 1;
        events.lifecycle(
                LifecycleEvent.Kind.RUN_FINISHED,
                String.format(Locale.ROOT, "finished %d step(s) in %.1f s", state.globalStep, state.elapsed()));
        return new Ending(RunResult.Status.FINISHED, "finished");
    }

    /** Trains one stage; returns the ending when the run stopped in it, null when the stage finished. */
    private Ending trainStage(
            StageSetup setup,
            Callbacks callbacks,
            TierChain tiers,
            int index,
            OptimizerConfig previous,
            boolean resuming) {
        StageConfig stage = config.stages().get(index);
        state.stageIndex = index;
        state.stageName = stage.name();
        state.startEpoch(0, null, 0, 0, 0);
        StagePlan plan = setup.plan(index);
        callbacks.onStageStart(state, plan);
        ComputationGraph converted = setup.inPrecision(net, stage);
        if (converted != net) {
            net = converted;
            prepareModel.accept(net);
        }
        boolean inItsStage = resuming && resume.continuesInItsStage(index);
        int startEpoch = 0;
        boolean keptState;
        if (inItsStage) {
            var c = resume.checkpoint();
            if (c.batchInEpoch() > plan.batchesPerEpoch) {
                throw new InvalidConfigException(
                        "stages[" + index + "]",
                        "the checkpoint is at batch " + c.batchInEpoch()
                                + " of an epoch, but this config's epochs have only " + plan.batchesPerEpoch
                                + " batches");
            }
            startEpoch = c.epoch();
            state.startEpoch(startEpoch, null, c.batchInEpoch(), c.epochLossSum(), c.epochExamples());
            tiers.plan(net, plan, state, false);
            resume.loadInto(net, state.globalStep);
            keptState = false;
        } else if (resuming) {
            // the checkpoint closed the previous stage: its numbers go in under that stage's optimizer, then the
            // stage change happens as in the uninterrupted run
            OptimizerConfig closed =
                    config.stages().get(resume.checkpoint().stageIndex()).optimizer();
            Optimizers.install(net, closed, new FixedSchedule(closed.learningRate()), false);
            resume.loadInto(net, state.globalStep);
            keptState = stage.optimizer().sameStateShapeAs(closed);
            tiers.plan(net, plan, state, keptState);
        } else {
            keptState = stage.optimizer().sameStateShapeAs(previous);
            tiers.plan(net, plan, state, keptState);
        }
        events.lifecycle(
                LifecycleEvent.Kind.STAGE_STARTED,
                String.format(
                        Locale.ROOT,
                        "stage %d/%d \"%s\": %d epoch(s) × %d step(s), %s on %s, %s lr %.3g%s (%s)%s, %s%s",
                        index + 1,
                        config.stages().size(),
                        stage.name(),
                        stage.epochs(),
                        plan.stepsPerEpoch,
                        plan.describeBatch(),
                        plan.devices,
                        stage.optimizer().type(),
                        plan.schedule.baseLr(),
                        plan.describeLrScaling(config.parallel()),
                        stage.schedule().type(),
                        keptState ? ", optimizer state carried over" : "",
                        stage.precision().json,
                        inItsStage
                                ? String.format(
                                        Locale.ROOT, "; resuming at epoch %d, batch %d", startEpoch + 1, state.cursor)
                                : ""));
        StepStrategy strategy = tiers.open(net, plan, state);
        StepStrategy.StepListener listener = raw -> {
            StepReport r = raw.perPosition(lossPositions);
            state.stepDone(r);
            callbacks.onStep(state, plan, r);
            if (r.step() == state.faults.stopAfterStep()) {
                state.stopRequested = true;
            }
        };
        for (int epoch = startEpoch; epoch < stage.epochs(); epoch++) {
            int[] order = BatchMaker.epochOrder(
                    plan.data.train().size(), config.dataFor(stage).shuffle(), config.seed(), index, epoch);
            if (epoch == startEpoch && inItsStage) {
                state.startEpoch(epoch, order, state.cursor, state.epochLossSum, state.epochExamples);
            } else {
                state.startEpoch(epoch, order, 0, 0, 0);
            }
            callbacks.onEpochStart(state, plan);
            long epochStart = System.nanoTime();
            while (state.cursor < plan.batchesPerEpoch) {
                if (state.stopRequested) {
                    return stop(callbacks, plan, "");
                }
                if (state.globalStep + 1 == state.faults.stallAtStep()) {
                    stall();
                }
                try {
                    strategy.advance(state, plan, listener);
                } catch (TierFailure failure) {
                    strategy = tiers.fallBack(net, plan, state, failure);
                }
            }
            TrainingCallback.EpochSummary summary =
                    new TrainingCallback.EpochSummary((System.nanoTime() - epochStart) / 1e9, new HashMap<>());
            try {
                callbacks.onEpochEnd(state, plan, summary);
            } catch (ValidationStopped cut) {
                // the checkpoint sits at the epoch's end before its validation, which the resume runs again
                return stop(callbacks, plan, " during validation");
            }
            events.lifecycle(
                    LifecycleEvent.Kind.EPOCH_FINISHED,
                    String.format(
                            Locale.ROOT,
                            "epoch %d/%d of \"%s\" in %.1f s",
                            epoch + 1,
                            stage.epochs(),
                            stage.name(),
                            summary.seconds()));
            callbacks.afterEpoch(state, plan, summary);
        }
        state.epoch = stage.epochs() - 1;
        tiers.endStage();
        events.lifecycle(LifecycleEvent.Kind.STAGE_FINISHED, "stage \"" + stage.name() + "\" finished");
        return null;
    }

    /** Saves the stop checkpoint of the last finished step and ends the run there. */
    private Ending stop(Callbacks callbacks, StagePlan plan, String where) {
        callbacks.onStop(state, plan);
        events.lifecycle(
                LifecycleEvent.Kind.RUN_STOPPED,
                "stopped by request" + where + " at step " + state.globalStep
                        + (state.lastCheckpoint != null ? "; resume from " + state.lastCheckpoint.getFileName() : ""));
        return new Ending(RunResult.Status.STOPPED, "stopped at step " + state.globalStep);
    }

    /** The injected stall: a step that never finishes, until the watchdog gives the run up. */
    private void stall() {
        while (!state.abandoned) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        throw new RunFailure("abandoned after the watchdog tripped");
    }
}
