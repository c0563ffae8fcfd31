package org.traindeck.engine.queue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.traindeck.engine.api.queue.QueueEntry;
import org.traindeck.engine.api.queue.QueueOutcome;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.checkpoint.CheckpointException;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.ValidationResult;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.sinks.RunLock;
import org.traindeck.engine.train.LiveRun;

/**
 * Runs a queue's runs until none is left, one after another (or several at once on disjoint device shares):
 * pending ones from the start, interrupted ones (the process was killed, or the queue was stopped) from their latest
 * checkpoint. A run that fails is recorded and the
 * queue goes on. Runs added while it runs (by another process) are picked up. Only one runner per queue file.
 */
public final class QueueRunner {

    /** What the runner tells whoever started it. */
    public interface Listener {

        /** A run is about to train ({@code resumed}: it continues from a checkpoint). */
        void starting(QueueEntry entry, LiveRun run, boolean resumed);

        /** A run ended, or could not start (then {@code result} is null and the entry's message says why). */
        void ended(QueueEntry entry, RunResult result);
    }

    private final Path file;
    private final List<DeviceSelection> slots;
    private final RunStarter starter;
    private final Set<Integer> tried = new HashSet<>();
    private final Set<LiveRun> running = ConcurrentHashMap.newKeySet();
    private volatile boolean stopRequested;

    /**
     * One run at a time, started by {@code starter}.
     *
     * @param devices the devices every run uses instead of its config's, or null for the config's own
     */
    public QueueRunner(Path file, DeviceSelection devices, RunStarter starter) {
        this(file, Collections.singletonList(devices), starter);
    }

    /**
     * Runs as many runs at once as there are {@code slots}, each slot's runs on its own devices (disjoint sets, from
     * {@link DeviceShares}; a null slot means each run's own config's devices), each started by {@code starter} (in
     * this JVM, or a process).
     */
    public QueueRunner(Path file, List<DeviceSelection> slots, RunStarter starter) {
        if (slots.isEmpty()) {
            throw new IllegalArgumentException("a queue runs at least one run at a time");
        }
        this.file = file;
        this.slots = new ArrayList<>(slots);
        this.starter = starter;
    }

    /** Stops the runs in progress after their step (each saves a checkpoint) and starts no other. */
    public void requestStop() {
        stopRequested = true;
        running.forEach(LiveRun::requestStop);
    }

    /** The runs training now. */
    public List<LiveRun> running() {
        return List.copyOf(running);
    }

    /** How many runs it trains at once. */
    public int concurrency() {
        return slots.size();
    }

    public QueueOutcome runAll(Listener listener) throws IOException {
        AtomicInteger finished = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        try (QueueLock ignored = QueueLock.forRunning(file)) {
            if (slots.size() == 1) {
                runSlot(slots.get(0), listener, finished, failed);
            } else {
                ExecutorService pool =
                        Executors.newFixedThreadPool(slots.size(), r -> new Thread(r, "traindeck-queue-slot"));
                try {
                    List<Future<Void>> done = new ArrayList<>();
                    for (DeviceSelection slot : slots) {
                        done.add(pool.submit(() -> {
                            runSlot(slot, listener, finished, failed);
                            return null;
                        }));
                    }
                    for (Future<Void> f : done) {
                        f.get();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    requestStop();
                    throw new IOException("interrupted while the queue ran", e);
                } catch (ExecutionException e) {
                    requestStop();
                    throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
                } finally {
                    pool.shutdown();
                }
            }
        }
        return new QueueOutcome(finished.get(), failed.get(), stopRequested);
    }

    /** One slot: takes the next waiting run, trains it on the slot's devices, and again, until none waits. */
    private void runSlot(DeviceSelection devices, Listener listener, AtomicInteger finished, AtomicInteger failed)
            throws IOException {
        QueueEntry next;
        while (!stopRequested && (next = take()) != null) {
            RunResult result = runOne(next, listener, devices);
            if (result != null && result.status() == RunResult.Status.STOPPED && stopRequested) {
                return;
            }
            if (result != null && result.succeeded() && result.status() != RunResult.Status.STOPPED) {
                finished.incrementAndGet();
            } else {
                failed.incrementAndGet();
            }
        }
    }

    /** The first waiting run no slot has taken yet (runs added meanwhile included), or null. */
    private synchronized QueueEntry take() throws IOException {
        QueueEntry next = RunQueue.open(file).entries().stream()
                .filter(e -> !e.status().isDone() && !tried.contains(e.id()))
                .findFirst()
                .orElse(null);
        if (next != null) {
            tried.add(next.id());
        }
        return next;
    }

    private RunResult runOne(QueueEntry entry, Listener listener, DeviceSelection devices) throws IOException {
        LiveRun run;
        boolean resumed = false;
        String note = null;
        try {
            if (entry.runDir() != null) {
                try {
                    run = starter.resume(entry.runDir(), devices);
                    resumed = true;
                } catch (CheckpointException e) {
                    // killed before its first checkpoint: nothing to continue, so it starts again in a new folder
                    note = "started again: " + entry.runDir().getFileName() + " had no checkpoint to resume ("
                            + e.getMessage() + ")";
                    run = starter.prepare(config(entry, devices));
                }
            } else {
                run = starter.prepare(config(entry, devices));
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
        this.running.add(run);
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
            this.running.remove(run);
        }
        QueueEntry.Status status = switch (result.status()) {
            case FINISHED -> QueueEntry.Status.FINISHED;
            case INCOMPLETE -> QueueEntry.Status.INCOMPLETE;
            case STOPPED -> QueueEntry.Status.STOPPED;
            case FAILED -> QueueEntry.Status.FAILED;
        };
        QueueEntry ended =
                running.with(status, result.runDir(), result.message().isEmpty() ? note : result.message());
        RunQueue.update(file, ended);
        listener.ended(ended, result);
        return result;
    }

    /** The entry's config as it was added, on the devices asked for; still checked (its data may have gone since). */
    private RunConfig config(QueueEntry entry, DeviceSelection devices) {
        ValidationResult v =
                ConfigParser.parse(entry.config(), file.toAbsolutePath().getParent());
        RunConfig config = v.orThrow();
        if (devices == null) {
            return config;
        }
        ValidationResult again = ConfigParser.revalidate(config.withDevices(devices));
        if (!again.isValid()) {
            throw new IllegalArgumentException(
                    again.errors().stream().map(Object::toString).collect(Collectors.joining("; "))
                            + " (with --devices " + devices.describe() + ")");
        }
        return again.config();
    }

    private static String message(Throwable e) {
        return e.getMessage() == null ? e.toString() : e.getMessage();
    }
}
