package org.traindeck.engine.trials;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.api.queue.QueueEntry;
import org.traindeck.engine.api.queue.QueueOutcome;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.events.EventBus;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.faults.FaultPlan;
import org.traindeck.engine.queue.QueueRunner;
import org.traindeck.engine.queue.RunQueue;
import org.traindeck.engine.queue.RunStarter;
import org.traindeck.engine.sweep.SweepLaunch;
import org.traindeck.engine.sweep.SweepResults;
import org.traindeck.engine.train.LiveRun;

/**
 * Concurrent sweep trials each train in a JVM of their own: a trial whose process is killed (SIGKILL) or crashes
 * (a real SIGSEGV, with its hs_err log) is recorded and continued once from its latest checkpoint, a second crash fails
 * it, and the other trial trains on untouched. Real processes, real signals.
 */
class TrialCrashProcessTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static Path sweep(Path dir, String name, int epochs) throws IOException {
        Files.writeString(dir.resolve("base.json"), """
                {"name": "base", "outputDir": "runs", "devices": "cpu:2", "model": {"type": "mlp", "hidden": [16]},
                 "data": {"train": {"type": "synthetic", "samples": 2000, "features": 8}, "validationSplit": 0.1},
                 "stages": [{"epochs": %d, "batchSize": 8, "optimizer": {"type": "adam", "learningRate": 0.001}}]}
                """.formatted(epochs));
        Path sweep = dir.resolve("sweep.json");
        Files.writeString(sweep, """
                {"name": "%s", "base": "base.json", "parameters": {"stages[0].optimizer.learningRate": [0.001, 0.002]},
                 "metric": "val/loss", "goal": "min", "concurrent": 2}
                """.formatted(name));
        return sweep;
    }

    /** The sweep run on a thread of this JVM (the sweep's process); its trials in processes of their own. */
    private record Running(
            SweepLaunch launch,
            CompletableFuture<QueueOutcome> outcome,
            Map<String, Long> pids,
            List<LifecycleEvent> rewinds) {}

    private static Running run(Path sweepFile, TrialProcesses processes) throws IOException {
        SweepLaunch launch = SweepLaunch.readAndQueue(sweepFile, m -> {}, c -> List.of());
        QueueRunner runner = launch.runner(
                null,
                DeviceDiscovery.system(),
                RunStarter.inProcess(DeviceDiscovery.system(), FaultPlan.NONE),
                processes);
        Map<String, Long> pids = new ConcurrentHashMap<>();
        List<LifecycleEvent> rewinds = new CopyOnWriteArrayList<>();
        CompletableFuture<QueueOutcome> outcome = CompletableFuture.supplyAsync(() -> {
            try {
                return runner.runAll(new QueueRunner.Listener() {
                    @Override
                    public void starting(QueueEntry entry, LiveRun run, boolean resumed) {
                        pids.put(entry.label(), ((SupervisedTrial) run).pid());
                        run.subscribe(
                                e -> {
                                    if (e instanceof LifecycleEvent l && l.kind() == LifecycleEvent.Kind.REWIND) {
                                        rewinds.add(l);
                                    }
                                },
                                EventBus.Delivery.LOSSLESS);
                    }

                    @Override
                    public void ended(QueueEntry entry, RunResult result) {}
                });
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        return new Running(launch, outcome, pids, rewinds);
    }

    private static List<QueueEntry> entries(Path queue) {
        try {
            return RunQueue.open(queue).entries();
        } catch (IOException e) {
            return List.of(); // being replaced at this instant: read again
        }
    }

    private static boolean hasStepCheckpoint(Path runDir) {
        try (Stream<Path> s = Files.list(runDir.resolve("checkpoints"))) {
            return s.anyMatch(p -> p.getFileName().toString().startsWith("step-")
                    && p.getFileName().toString().endsWith(".tdckpt"));
        } catch (IOException e) {
            return false;
        }
    }

    private static long lastStep(Path runDir) throws IOException {
        List<String> lines = Files.readAllLines(runDir.resolve("metrics.jsonl"));
        return JSON.readTree(lines.get(lines.size() - 1)).get("step").asLong();
    }

    private static List<Path> crashLogs(Path runDir) throws IOException {
        try (Stream<Path> s = Files.list(runDir.resolve("crash"))) {
            return s.filter(p -> p.getFileName().toString().matches("hs_err_pid\\d+\\.log"))
                    .sorted()
                    .toList();
        }
    }

    @Test
    void aTrialWhoseProcessIsKilledContinuesFromItsCheckpointAndTheOtherTrainsOn(@TempDir Path dir) throws Exception {
        Path sweepFile = sweep(dir, "kill", 4);
        List<String> crashes = new ArrayList<>();
        TrialProcesses processes = new TrialProcesses(TrialLaunch.sameAsThisJvm());
        processes.onCrash(crashes::add);
        Running sweep = run(sweepFile, processes);
        Path queue = sweep.launch().queueFile();

        // trial 1's process is killed once it has a step checkpoint to continue from
        await().atMost(Duration.ofSeconds(240))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    assertThat(sweep.outcome()).isNotDone();
                    List<QueueEntry> e = entries(queue);
                    return e.size() == 2
                            && e.get(0).status() == QueueEntry.Status.RUNNING
                            && sweep.pids().containsKey("kill-1")
                            && sweep.pids().containsKey("kill-2")
                            && hasStepCheckpoint(e.get(0).runDir());
                });
        long pid = sweep.pids().get("kill-1");
        ProcessHandle child = ProcessHandle.of(pid).orElseThrow();
        assertThat(ProcessHandle.current().descendants().map(ProcessHandle::pid))
                .as("a process of this sweep's")
                .contains(pid);
        assertThat(child.info().commandLine().orElse("")).contains("-XX:ErrorFile=" + dir.resolve("runs/kill-1/crash"));
        long otherPid = sweep.pids().get("kill-2");
        child.destroyForcibly();

        QueueOutcome outcome = sweep.outcome().get(300, TimeUnit.SECONDS);
        List<QueueEntry> done = entries(queue);
        assertThat(done)
                .extracting(QueueEntry::status)
                .containsExactly(QueueEntry.Status.FINISHED, QueueEntry.Status.FINISHED);
        assertThat(outcome.finished()).isEqualTo(2);
        QueueEntry killed = done.get(0);
        assertThat(killed.message())
                .contains("process " + pid + " ended without a result")
                .contains("SIGKILL")
                .contains("no crash log")
                .contains("resumed");
        assertThat(crashes).hasSize(1);
        assertThat(sweep.pids().get("kill-2"))
                .as("trial 2 kept its one process")
                .isEqualTo(otherPid);
        assertThat(done.get(1).message()).as("trial 2 never crashed").doesNotContain("crash");
        // continued in its own folder from its checkpoint, to the same end as the trial that was never killed
        assertThat(killed.runDir()).isEqualTo(dir.resolve("runs/kill-1"));
        assertThat(killed.runDir().resolve("config.resume-1.json")).exists();
        assertThat(lastStep(killed.runDir()))
                .isEqualTo(lastStep(done.get(1).runDir()))
                .isGreaterThan(0);
        // who follows the trial (the app's charts) is told to forget the steps after the checkpoint it continued from
        assertThat(sweep.rewinds())
                .singleElement()
                .satisfies(l -> assertThat(l.step()).isPositive());
        // the sweep's summary says what happened
        List<SweepResults.Row> rows =
                SweepResults.rows(sweep.launch().spec(), sweep.launch().trials(), done);
        assertThat(SweepResults.notes(rows, done))
                .singleElement()
                .asString()
                .startsWith("trial 1 (kill-1): crashed: process " + pid);
    }

    @Test
    void aCrashWritesItsLogIntoTheRunFolderAndASecondCrashFailsOnlyThatTrial(@TempDir Path dir) throws Exception {
        Path sweepFile = sweep(dir, "segv", 2);
        // trial 1 crashes in its first process and again in the one that continues it; trial 2 only in its first
        TrialLaunch crashing = TrialLaunch.sameAsThisJvm()
                .withMainClass(CrashingTrialMain.class.getName())
                .withOptions(
                        List.of("-Dcrash.start=segv-1,segv-2", "-Dcrash.resume=segv-1", "-XX:-CreateCoredumpOnCrash"));
        List<String> crashes = new ArrayList<>();
        TrialProcesses processes = new TrialProcesses(crashing);
        processes.onCrash(crashes::add);
        Running sweep = run(sweepFile, processes);

        QueueOutcome outcome = sweep.outcome().get(300, TimeUnit.SECONDS);
        List<QueueEntry> done = entries(sweep.launch().queueFile());
        assertThat(done)
                .extracting(QueueEntry::status)
                .containsExactly(QueueEntry.Status.FAILED, QueueEntry.Status.FINISHED);
        assertThat(outcome.failed()).isEqualTo(1);
        assertThat(outcome.finished()).isEqualTo(1);
        assertThat(crashes).hasSize(3);

        Path failed = done.get(0).runDir();
        List<Path> logs = crashLogs(failed);
        assertThat(logs).as("a crash log per crash, in the run folder").hasSize(2);
        assertThat(Files.readString(logs.get(0))).contains("SIGSEGV");
        assertThat(done.get(0).message())
                .contains("crashed 2 times")
                .contains("SIGSEGV in ")
                .contains("crash log: " + logs.get(0))
                .contains("crash log: " + logs.get(1));

        Path recovered = done.get(1).runDir();
        assertThat(crashLogs(recovered)).hasSize(1);
        assertThat(done.get(1).message())
                .contains("crash log: " + crashLogs(recovered).get(0))
                .contains("resumed");
        assertThat(lastStep(recovered)).isGreaterThan(0);
        // never into the working folder
        try (Stream<Path> s = Files.list(Path.of("").toAbsolutePath())) {
            List<String> pids =
                    logs.stream().map(p -> p.getFileName().toString()).toList();
            assertThat(s.map(p -> p.getFileName().toString()).filter(pids::contains))
                    .isEmpty();
        }
    }
}
