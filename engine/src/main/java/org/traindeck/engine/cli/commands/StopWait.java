package org.traindeck.engine.cli.commands;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import sun.misc.Signal;

/**
 * The wait for a stop checkpoint after Ctrl-C or SIGTERM, inside the JVM's shutdown: it ends when the work is done,
 * when the limit has passed, or at a second Ctrl-C or SIGTERM (the JVM itself ignores signals while it shuts down, so
 * a user pressing Ctrl-C again would otherwise wait out the whole limit).
 */
final class StopWait {

    /** How a wait ended. */
    enum Outcome {
        DONE,
        LIMIT,
        SECOND_SIGNAL
    }

    private final CountDownLatch secondSignal = new CountDownLatch(1);

    private StopWait() {}

    /** Begins the wait: from now on a second Ctrl-C or SIGTERM ends it. Call from the shutdown hook only. */
    static StopWait begin() {
        StopWait wait = new StopWait();
        for (String name : new String[] {"INT", "TERM"}) {
            try {
                Signal.handle(new Signal(name), s -> wait.secondSignal.countDown());
            } catch (IllegalArgumentException | UnsupportedOperationException notHere) {
                // a JVM started with -Xrs, or a platform without the signal: the limit still holds
            }
        }
        return wait;
    }

    /** Waits for {@code done} until {@code deadlineNanos} (a {@link System#nanoTime()}) or a second signal. */
    Outcome await(CompletableFuture<?> done, long deadlineNanos) {
        CountDownLatch woken = new CountDownLatch(1);
        done.whenComplete((r, e) -> woken.countDown());
        Thread relay = new Thread(
                () -> {
                    try {
                        secondSignal.await();
                        woken.countDown();
                    } catch (InterruptedException e) {
                        // the wait is over
                    }
                },
                "traindeck-second-signal");
        relay.setDaemon(true);
        relay.start();
        try {
            woken.await(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            relay.interrupt();
        }
        if (done.isDone()) {
            return Outcome.DONE;
        }
        return secondSignal.getCount() == 0 ? Outcome.SECOND_SIGNAL : Outcome.LIMIT;
    }

    static long deadline(Duration limit) {
        return System.nanoTime() + limit.toNanos();
    }
}
