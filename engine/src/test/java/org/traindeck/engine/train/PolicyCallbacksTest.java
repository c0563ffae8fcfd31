package org.traindeck.engine.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.LongPredicate;
import java.util.function.LongToDoubleFunction;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.checkpoint.Checkpoint;
import org.traindeck.engine.checkpoint.CheckpointStore;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.EventBus;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.faults.FaultPlan;
import org.traindeck.engine.parallel.DeviceAffinity;
import org.traindeck.engine.parallel.DevicePlacement;
import org.traindeck.engine.parallel.Tier;
import org.traindeck.engine.parallel.TierFailure;
import org.traindeck.engine.sinks.RunLogSink;
import org.traindeck.engine.train.batch.StageSetup;
import org.traindeck.engine.train.callback.Callbacks;
import org.traindeck.engine.train.callback.CheckpointCallback;
import org.traindeck.engine.train.callback.CheckpointWriter;
import org.traindeck.engine.train.callback.MetricWindows;
import org.traindeck.engine.train.callback.NonFinitePolicy;
import org.traindeck.engine.train.state.RunEvents;
import org.traindeck.engine.train.state.RunFailure;
import org.traindeck.engine.train.state.StepReport;
import org.traindeck.engine.train.state.TrainingState;

/**
 * The policies around the loop (non-finite steps, metric windows, checkpoints, fallback, stop), driven by the real
 * trainer with a fake step strategy that reports scripted steps instead of training: no DL4J training happens.
 * The data is 64 samples in batches of 8: 8 batches an epoch.
 */
class PolicyCallbacksTest {

    private static final String CONFIG = """
            {"name": "fake", "outputDir": "out", "devices": "%s", "model": {"type": "mlp", "hidden": [4]},
             "data": {"train": {"type": "synthetic", "samples": 64, "features": 3, "numClasses": 2}},
             "stages": [{"name": "main", "epochs": 3, "batchSize": 8}],
             "logging": {"everySteps": %d}, "onNonFinite": "%s",
             "checkpoint": {"everyEpochs": 2, "keepLast": 10, "keepBestPerStage": true, "monitor": "train/epoch_loss", "mode": "min",
                            "onWriteError": "%s"}}
            """;

    /** A tier's steps as the script says: their loss, whether they were applied, and a failure of a tier at a step. */
    record Script(LongToDoubleFunction loss, LongPredicate applied, Tier failingTier, long failAtStep) {
        static Script of(LongToDoubleFunction loss) {
            return new Script(loss, s -> true, null, -1);
        }
    }

    private final List<EngineEvent> events = Collections.synchronizedList(new ArrayList<>());
    private TrainingState state;
    private String onWriteError = "continue";

    private Trainer.Ending run(
            Path dir,
            String devices,
            int everySteps,
            String onNonFinite,
            Script script,
            FaultPlan faults,
            LongPredicate stopAfter)
            throws Exception {
        RunConfig config = ConfigParser.parse(CONFIG.formatted(devices, everySteps, onNonFinite, onWriteError), dir)
                .orThrow();
        Path runDir = Files.createDirectories(dir.resolve("run"));
        EventBus bus = new EventBus();
        bus.subscribe(events::add, EventBus.Delivery.LOSSLESS);
        RunEvents runEvents = new RunEvents(config.name(), runDir, bus, new RunLogSink(runDir.resolve("train.log")));
        state = new TrainingState(0, 0, Map.of());
        runEvents.attach(state);
        state.startClock();
        DevicePlacement placement =
                DevicePlacement.of(RunDevices.resolve(config.devices(), null), DeviceAffinity.nd4j());
        TierChain.StrategyFactory fake = (tier, net, plan) -> (s, p, listener) -> {
            long step = s.globalStep + 1;
            if (tier == script.failingTier() && step == script.failAtStep()) {
                throw new TierFailure("scripted failure at step " + step, true, null);
            }
            int batches = Math.min(p.batchesPerStep, p.batchesPerEpoch - s.cursor);
            long[] perDevice = new long[p.workers];
            perDevice[0] = batches * 8L;
            listener.onStep(new StepReport(
                    step,
                    batches,
                    script.loss().applyAsDouble(step),
                    1.0,
                    batches * 8,
                    perDevice,
                    script.applied().test(step),
                    0.001,
                    0,
                    Double.NaN));
            if (stopAfter.test(step)) {
                s.stopRequested = true;
            }
        };
        Trainer trainer = new Trainer(config, state, runEvents, placement, faults, null, false, net -> {}, fake);
        StageSetup setup = new StageSetup(config, runEvents);
        trainer.buildModel(setup);
        CheckpointWriter writer = new CheckpointWriter(config, "{}", runDir, runEvents, faults, trainer.fingerprint());
        Callbacks callbacks = new Callbacks(List.of(
                new NonFinitePolicy(runEvents, config.skipNonFinite()),
                new MetricWindows(runEvents, placement.deviceIds(), everySteps, 0),
                new CheckpointCallback(writer, config.checkpoint(), trainer::net, null)));
        try {
            return trainer.train(setup, callbacks);
        } finally {
            bus.close();
        }
    }

    private List<MetricEvent> metrics(String name) {
        synchronized (events) {
            return events.stream()
                    .filter(e -> e instanceof MetricEvent m && m.name().equals(name) && m.device() == null)
                    .map(e -> (MetricEvent) e)
                    .toList();
        }
    }

    private List<String> lifecycle(LifecycleEvent.Kind kind) {
        synchronized (events) {
            return events.stream()
                    .filter(e -> e instanceof LifecycleEvent l && l.kind() == kind)
                    .map(e -> ((LifecycleEvent) e).message())
                    .toList();
        }
    }

    @Test
    void aNonFiniteStepStopsTheRunWithAdviceByDefault(@TempDir Path dir) {
        Script nanAt5 = new Script(s -> s == 5 ? Double.NaN : 1.0, s -> s != 5, null, -1);
        assertThatThrownBy(() -> run(dir, "cpu", 1, "stop", nanAt5, FaultPlan.NONE, s -> false))
                .isInstanceOf(RunFailure.class)
                .hasMessageContaining("the loss became NaN at step 5")
                .hasMessageContaining("stopped before the update")
                .hasMessageContaining("lower learning rate");
        assertThat(state.globalStep).isEqualTo(5);
    }

    @Test
    void skippingGoesOnPastOneBadStepButNotPastTwentyInARow(@TempDir Path dir) throws Exception {
        Script one = new Script(s -> s == 5 ? Double.NaN : 1.0, s -> s != 5, null, -1);
        assertThat(run(dir.resolve("one"), "cpu", 1, "skip", one, FaultPlan.NONE, s -> false)
                        .status())
                .isEqualTo(RunResult.Status.FINISHED);
        assertThat(lifecycle(LifecycleEvent.Kind.WARNING))
                .singleElement()
                .satisfies(w -> assertThat(w).contains("at step 5").contains("batch skipped"));
        assertThat(metrics("train/epoch_loss").get(0).value()).isEqualTo(1.0);

        Script many = new Script(s -> Double.POSITIVE_INFINITY, s -> s < 3, null, -1);
        assertThatThrownBy(() -> run(dir.resolve("many"), "cpu", 1, "skip", many, FaultPlan.NONE, s -> false))
                .isInstanceOf(RunFailure.class)
                .hasMessageContaining("at step 23")
                .hasMessageContaining("the 20 steps before it were skipped too");
    }

    @Test
    void metricWindowsAverageTheirStepsAndCloseAtTheEpochEnd(@TempDir Path dir) throws Exception {
        run(dir, "cpu", 3, "stop", Script.of(s -> s), FaultPlan.NONE, s -> false);

        List<MetricEvent> loss = metrics("train/loss");
        // windows of 3 steps, cut at each epoch's end (steps 8, 16, 24)
        assertThat(loss).extracting(MetricEvent::step).containsExactly(3L, 6L, 8L, 9L, 12L, 15L, 16L, 18L, 21L, 24L);
        assertThat(loss.get(0).value()).isEqualTo(2.0);
        assertThat(loss.get(2).value()).isEqualTo(7.5);
        assertThat(metrics("train/epoch_loss")).extracting(MetricEvent::value).containsExactly(4.5, 12.5, 20.5);
        assertThat(metrics("throughput/samples_per_s"))
                .isNotEmpty()
                .allSatisfy(m -> assertThat(m.value()).isPositive());
    }

    @Test
    void checkpointsAtEveryOtherEpochTheStageEndAndTheBest(@TempDir Path dir) throws Exception {
        // the epoch loss falls, then rises in the last epoch: the best stays at epoch 2
        Script script = Script.of(s -> s <= 16 ? 10.0 - s / 8 : 50.0);
        assertThat(run(dir, "cpu", 1, "stop", script, FaultPlan.NONE, s -> false)
                        .status())
                .isEqualTo(RunResult.Status.FINISHED);

        List<Checkpoint.Listed> saved = new CheckpointStore(dir.resolve("run")).list();
        assertThat(saved)
                .extracting(l -> l.checkpoint().reason() + "@" + l.checkpoint().globalStep())
                .containsExactlyInAnyOrder("epoch@16", "stage-end@24", "best@16");
        assertThat(saved).allSatisfy(l -> assertThat(l.isValid()).isTrue());
        Checkpoint best = saved.stream()
                .filter(l -> l.checkpoint().reason().equals("best"))
                .findFirst()
                .orElseThrow()
                .checkpoint();
        assertThat(best.epoch()).isEqualTo(2);
        assertThat(best.batchInEpoch()).isZero();
        // steps 9..15 have loss 9 and step 16 has 8
        assertThat(best.best().get("main")).isCloseTo(8.875, within(1e-12));
    }

    @Test
    void aCheckpointThatCannotBeWrittenWarnsAndGoesOnOrStopsAsThePolicySays(@TempDir Path dir) throws Exception {
        Trainer.Ending goesOn = run(
                dir.resolve("continue"),
                "cpu",
                1,
                "stop",
                Script.of(s -> 1.0),
                FaultPlan.NONE.diskFullFromStep(10),
                s -> false);
        assertThat(goesOn.status()).isEqualTo(RunResult.Status.FINISHED);
        // every other epoch: the first regular checkpoint would have been step 16's (the best ones do not count)
        assertThat(lifecycle(LifecycleEvent.Kind.FILE_WRITE_FAILED))
                .anySatisfy(w -> assertThat(w)
                        .contains("the epoch checkpoint at step 16 could not be written: the disk is full")
                        .contains("No earlier checkpoint exists"));

        onWriteError = "stop";
        events.clear();
        Trainer.Ending stops = run(
                dir.resolve("stop"),
                "cpu",
                1,
                "stop",
                Script.of(s -> 1.0),
                FaultPlan.NONE.diskFullFromStep(10),
                s -> false);
        assertThat(stops.status()).isEqualTo(RunResult.Status.STOPPED);
        assertThat(stops.message()).contains("because a checkpoint could not be written");
        assertThat(state.globalStep).isEqualTo(16);
    }

    @Test
    void aFailingTierFallsBackAndTheStepIsTrainedOnceByTheNext(@TempDir Path dir) throws Exception {
        Script script = new Script(s -> 1.0, s -> true, Tier.SYNC_P2P, 4);
        Trainer.Ending ending = run(dir, "cpu:2", 1, "stop", script, FaultPlan.NONE, s -> false);

        assertThat(ending.status()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(lifecycle(LifecycleEvent.Kind.FALLBACK))
                .singleElement()
                .satisfies(m -> assertThat(m)
                        .contains("scripted failure at step 4")
                        .contains("all-reduce through host memory from step 3"));
        // 8 batches an epoch, 2 a step: 4 steps an epoch on either tier
        assertThat(metrics("train/loss"))
                .extracting(MetricEvent::step)
                .containsExactlyElementsOf(LongStream.rangeClosed(1, 12).boxed().toList());
    }

    @Test
    void aStopRequestSavesWhereTheEpochIs(@TempDir Path dir) throws Exception {
        Trainer.Ending ending = run(dir, "cpu", 1, "stop", Script.of(s -> 1.0), FaultPlan.NONE, s -> s == 11);

        assertThat(ending.status()).isEqualTo(RunResult.Status.STOPPED);
        Checkpoint stop = new CheckpointStore(dir.resolve("run"))
                .list().stream()
                        .map(Checkpoint.Listed::checkpoint)
                        .filter(c -> c.reason().equals("stop"))
                        .findFirst()
                        .orElseThrow();
        assertThat(stop.globalStep()).isEqualTo(11);
        assertThat(stop.epoch()).isEqualTo(1);
        assertThat(stop.batchInEpoch()).isEqualTo(3);
        assertThat(stop.epochExamples()).isEqualTo(24);
        assertThat(lifecycle(LifecycleEvent.Kind.RUN_STOPPED))
                .singleElement()
                .satisfies(m -> assertThat(m).contains("step 11"));
    }
}
