package org.traindeck.engine.queue;

import org.traindeck.engine.checkpoint.CheckpointException;
import org.traindeck.engine.config.ConfigParser;
import org.traindeck.engine.config.ConfigWriter;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.ValidationResult;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.faults.FaultPlan;
import org.traindeck.engine.sinks.RunLock;
import org.traindeck.engine.train.RunResult;
import org.traindeck.engine.train.TrainingRun;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Runs a queue's runs one after another until none is left: pending ones from the start, interrupted ones (the
 * process was killed, or the queue was stopped) from their latest checkpoint. A run that fails is recorded and the
 * queue goes on. Runs added while it runs (by another process) are picked up. Only one runner per queue file.
 */
public final class QueueRunner {

    /** What the runner tells whoever started it. */
    public interface Listener {

        /** A run is about to train ({@code resumed}: it continues from a checkpoint). */
        void starting(QueueEntry entry, TrainingRun run, boolean resumed);

        /** A run ended, or could not start (then {@code result} is null and the entry's message says why). */
        void ended(QueueEntry entry, RunResult result);
    }

    /** How the queue went: the runs that ended each way in this session, and whether it was stopped. */
    public record Outcome(int finished, int failed, boolean stopped) {}

    private final Path file;
    private final DeviceDiscovery discovery;
    private final DeviceSelection devices;
    private final FaultPlan faults;
    private volatile boolean stopRequested;
    private volatile TrainingRun current;

    /** @param devices the devices every run uses instead of its config's, or null for the config's own */
    public QueueRunner(Path file, DeviceDiscovery discovery, DeviceSelection devices, FaultPlan faults) {
        this.file = file;
        this.discovery = discovery;
        this.devices = devices;
        this.faults = faults;
    }

    /** Stops the run in progress after its step (it saves a checkpoint) and starts no other. */
    public void requestStop() {
        stopRequested = true;
        TrainingRun run = current;
        if (run != null) {
            run.requestStop();
        }
    }

    public TrainingRun current() {
        return current;
    }

    public Outcome runAll(Listener listener) throws IOException {
        int finished = 0;
        int failed = 0;
        Set<Integer> tried = new HashSet<>();
        try (QueueLock ignored = QueueLock.forRunning(file)) {
            while (!stopRequested) {
                QueueEntry next = RunQueue.open(file).entries().stream()
                        .filter(e -> !e.status().isDone() && !tried.contains(e.id()))
                        .findFirst().orElse(null);
                if (next == null) {
                    break;
                }
                tried.add(next.id());
                RunResult result = runOne(next, listener);
                if (result != null && result.status() == RunResult.Status.STOPPED && stopRequested) {
                    return new Outcome(finished, failed, true);
                }
                if (result != null && result.succeeded() && result.status() != RunResult.Status.STOPPED) {
                    finished++;
                } else {
                    failed++;
                }
            }
        }
        return new Outcome(finished, failed, stopRequested);
    }

    private RunResult runOne(QueueEntry entry, Listener listener) throws IOException {
        TrainingRun run;
        boolean resumed = false;
        String note = null;
        try {
            if (entry.runDir() != null) {
                try {
                    run = TrainingRun.resume(entry.runDir(), new TrainingRun.ResumeOptions(null, null, devices), discovery, faults);
                    resumed = true;
                } catch (CheckpointException e) {
                    // killed before its first checkpoint: nothing to continue, so it starts again in a new folder
                    note = "started again: " + entry.runDir().getFileName() + " had no checkpoint to resume (" + e.getMessage() + ")";
                    run = TrainingRun.prepare(config(entry), discovery, faults);
                }
            } else {
                run = TrainingRun.prepare(config(entry), discovery, faults);
            }
        } catch (RunLock.BusyException e) {
            QueueEntry skipped = entry.with(entry.status(), entry.runDir(), "skipped: " + e.getMessage());
            RunQueue.update(file, skipped);
            listener.ended(skipped, null);
            return null;
        } catch (IOException | RuntimeException e) {
            QueueEntry failed = entry.with(QueueEntry.Status.FAILED, entry.runDir(), "could not start: " + message(e));
            RunQueue.update(file, failed);
            listener.ended(failed, null);
            return null;
        }
        QueueEntry running = entry.with(QueueEntry.Status.RUNNING, run.runDir(), note);
        RunQueue.update(file, running);
        current = run;
        listener.starting(running, run, resumed);
        if (stopRequested) {
            run.requestStop();
        }
        run.start();
        RunResult result;
        try {
            result = run.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            run.requestStop();
            throw new IOException("interrupted while " + entry.label() + " ran", e);
        } finally {
            current = null;
        }
        QueueEntry.Status status = switch (result.status()) {
            case FINISHED -> QueueEntry.Status.FINISHED;
            case INCOMPLETE -> QueueEntry.Status.INCOMPLETE;
            case STOPPED -> QueueEntry.Status.STOPPED;
            case FAILED -> QueueEntry.Status.FAILED;
        };
        QueueEntry ended = running.with(status, result.runDir(), result.message().isEmpty() ? note : result.message());
        RunQueue.update(file, ended);
        listener.ended(ended, result);
        return result;
    }

    /** The entry's config as it was added, on the devices asked for; still checked (its data may have gone since). */
    private RunConfig config(QueueEntry entry) {
        ValidationResult v = ConfigParser.parse(entry.config(), file.toAbsolutePath().getParent());
        RunConfig config = v.orThrow();
        if (devices == null) {
            return config;
        }
        ValidationResult again = ConfigParser.parse(ConfigWriter.toJson(config.withDevices(devices)), config.baseDir());
        if (!again.isValid()) {
            throw new IllegalArgumentException(again.errors().stream().map(Object::toString)
                    .collect(Collectors.joining("; ")) + " (with --devices " + devices.describe() + ")");
        }
        return again.config();
    }

    private static String message(Throwable e) {
        return e.getMessage() == null ? e.toString() : e.getMessage();
    }
}
