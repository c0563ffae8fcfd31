package org.traindeck.engine.parallel;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Notices a hung run: when no step completes (no {@link #touch()}) within the timeout, it calls its handler once,
 * with a diagnosis that includes a dump of every thread.
 */
public final class Watchdog implements AutoCloseable {

    private final long timeoutNanos;
    private final Consumer<String> onHang;
    private final Thread thread;
    private volatile long lastProgress = System.nanoTime();
    private volatile boolean running = true;
    private volatile boolean paused;
    private volatile String context = "";

    /** @param onHang gets the diagnosis: what was running, for how long, and a thread dump */
    public Watchdog(int timeoutSeconds, Consumer<String> onHang) {
        this.timeoutNanos = TimeUnit.SECONDS.toNanos(timeoutSeconds);
        this.onHang = onHang;
        this.thread = new Thread(this::watch, "traindeck-watchdog");
        this.thread.setDaemon(true);
    }

    public Watchdog start() {
        thread.start();
        return this;
    }

    /** A step completed. */
    public void touch() {
        lastProgress = System.nanoTime();
    }

    /** What is running now (the tier and devices), for the diagnosis. */
    public void context(String text) {
        context = text;
        touch();
    }

    /** Long non-step work (loading data, validating, writing a checkpoint) is not a hang. */
    public void pause(boolean pause) {
        paused = pause;
        touch();
    }

    private void watch() {
        while (running) {
            try {
                Thread.sleep(Math.min(1000, Math.max(10, TimeUnit.NANOSECONDS.toMillis(timeoutNanos) / 10)));
            } catch (InterruptedException e) {
                return;
            }
            long idle = System.nanoTime() - lastProgress;
            if (running && !paused && idle > timeoutNanos) {
                running = false;
                onHang.accept(String.format(
                        "no training step completed in %.0f s (limit %d s) while running %s.%n%s",
                        idle / 1e9, TimeUnit.NANOSECONDS.toSeconds(timeoutNanos), context, threadDump()));
                return;
            }
        }
    }

    static String threadDump() {
        StringBuilder b = new StringBuilder("Thread dump:\n");
        for (ThreadInfo t : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
            b.append('"').append(t.getThreadName()).append("\" ").append(t.getThreadState());
            if (t.getLockName() != null) {
                b.append(" on ").append(t.getLockName());
            }
            if (t.getLockOwnerName() != null) {
                b.append(" owned by \"").append(t.getLockOwnerName()).append('"');
            }
            b.append('\n');
            for (StackTraceElement e : t.getStackTrace()) {
                b.append("    at ").append(e).append('\n');
            }
        }
        return b.toString();
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
    }
}
