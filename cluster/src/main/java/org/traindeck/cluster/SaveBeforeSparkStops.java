package org.traindeck.cluster;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.util.ShutdownHookManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * On SIGTERM or Ctrl-C the JVM runs its shutdown hooks at once and together: TrainDeck's asks the run to stop after the
 * step in flight and save it, while Spark's (one hook in Hadoop's manager, at priority 40, that stops the SparkContext)
 * would cancel that step's job ("Job cancelled because SparkContext was shut down") and fail the run before it saves.
 * This hook runs before Spark's in the same manager and holds it until the run has closed its session (saved and ended),
 * for at most {@link #MAX_WAIT_SECONDS}.
 */
final class SaveBeforeSparkStops implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SaveBeforeSparkStops.class);
    /** Above Spark's hook manager (40 = Hadoop's FileSystem priority 10 + 30): Hadoop runs higher priorities first. */
    static final int PRIORITY = 50;
    /** As long as the CLI waits for the stop checkpoint after a signal (its own limit ends the process anyway). */
    static final int MAX_WAIT_SECONDS = 60;

    private final CountDownLatch closed = new CountDownLatch(1);
    private final Runnable hook = this::awaitClose;

    private SaveBeforeSparkStops() {}

    static SaveBeforeSparkStops install() {
        SaveBeforeSparkStops guard = new SaveBeforeSparkStops();
        ShutdownHookManager.get().addShutdownHook(guard.hook, PRIORITY, MAX_WAIT_SECONDS, TimeUnit.SECONDS);
        return guard;
    }

    private void awaitClose() {
        try {
            if (!closed.await(MAX_WAIT_SECONDS, TimeUnit.SECONDS)) {
                LOG.warn("the run did not end its cluster session within {} s of the signal", MAX_WAIT_SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The session has ended (its stop checkpoint, if any, is written): Spark may stop. */
    @Override
    public void close() {
        closed.countDown();
        try {
            ShutdownHookManager.get().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // shutting down already: the hook has run or returns at once now
        }
    }
}
