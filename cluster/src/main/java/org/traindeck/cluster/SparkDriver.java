package org.traindeck.cluster;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.traindeck.engine.parallel.DistributedSpec;
import org.traindeck.engine.parallel.TierFailure;

/**
 * A run's Spark driver, of which Spark allows one per JVM: started with the run's settings once the master answers
 * and the previous run's driver has stopped, handed over when every executor asked for has joined, and stopped
 * within {@link #STOP_SECONDS} at the run's end.
 */
final class SparkDriver {

    private static final Logger LOG = LoggerFactory.getLogger(SparkDriver.class);

    private static final int STOP_SECONDS = 5;
    /** How long a new run waits for the previous run's driver to finish stopping: Spark allows one per JVM. */
    private static final int PREVIOUS_STOP_SECONDS = 150;
    /** The previous driver's stop, still going on after its run ended (a stuck executor holds it). */
    private static volatile Thread stopping;

    /** A started driver, what it has seen of its executors, and the names of the executors it joined. */
    record Joined(JavaSparkContext sc, ClusterEvents events, List<String> executors) {}

    private SparkDriver() {}

    /** Starts the driver and waits for its executors; a driver that started is stopped again if that fails. */
    static Joined start(DistributedSpec spec) {
        URI master = URI.create(spec.address());
        String host = master.getHost();
        int port = master.getPort();
        if (host == null || port < 0) {
            throw new TierFailure(
                    "\"" + spec.address() + "\" is not a Spark master address (spark://HOST:PORT)", true, null);
        }
        Path secretFile = spec.secretFile() != null ? spec.secretFile() : ClusterSecret.defaultFile();
        String secret;
        try {
            secret = ClusterSecret.read(secretFile);
        } catch (IllegalArgumentException e) {
            throw new TierFailure(e.getMessage(), true, e);
        }
        String log = spec.settings().get(DistributedSpec.LOG_FILE);
        SparkLogFile.routeTo(log == null ? null : Path.of(log));
        JavaSparkContext sc = null;
        try {
            String localIp = MasterProbe.localAddressTowards(host, port);
            MasterProbe.check(host, port, secret, localIp, 15);
            awaitPreviousStop();
            SparkConf conf = conf(spec, secret, localIp);
            try {
                sc = new JavaSparkContext(conf);
            } catch (RuntimeException e) {
                throw new TierFailure(
                        "cannot start a Spark driver for " + spec.address() + ": " + MasterProbe.rootMessage(e),
                        true,
                        e);
            }
            ClusterEvents events = ClusterEvents.of(conf.get("spark.app.name"));
            return new Joined(sc, events, awaitExecutors(spec, sc, events));
        } catch (RuntimeException e) {
            if (sc != null) {
                sc.stop();
            }
            throw e;
        }
    }

    private static void awaitPreviousStop() {
        Thread previous = stopping;
        if (previous == null) {
            return;
        }
        try {
            previous.join(TimeUnit.SECONDS.toMillis(PREVIOUS_STOP_SECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (previous.isAlive()) {
            throw new TierFailure(
                    "the previous cluster run's Spark driver is still stopping after " + PREVIOUS_STOP_SECONDS
                            + " s (an executor that does not answer holds it); Spark allows one driver per process: try again once it has"
                            + " stopped, or restart TrainDeck",
                    true,
                    null);
        }
    }

    /** The driver's settings; the session's own "spark.*" settings (measurements) come last and win. */
    static SparkConf conf(DistributedSpec spec, String secret, String localIp) {
        SparkConf conf = new SparkConf(false)
                .setMaster(spec.address())
                .setAppName("traindeck-" + spec.runId())
                .set("spark.authenticate", "true")
                .set("spark.authenticate.secret", secret)
                .set("spark.network.crypto.enabled", "true")
                .set("spark.driver.host", localIp)
                .set("spark.driver.bindAddress", localIp)
                .set("spark.ui.enabled", "false")
                .set("spark.ui.killEnabled", "false")
                .set("spark.executor.cores", "1")
                .set("spark.cores.max", String.valueOf(spec.executors()))
                .set("spark.executor.memory", "1g")
                .set("spark.task.maxFailures", "1")
                .set("spark.stage.maxConsecutiveAttempts", "1")
                .set("spark.extraListeners", ClusterEvents.class.getName())
                .set("spark.executorEnv.SPARK_SCALA_VERSION", "2.12")
                .set("spark.executorEnv.OMP_NUM_THREADS", System.getenv().getOrDefault("OMP_NUM_THREADS", "1"));
        String natives = System.getProperty("org.bytedeco.javacpp.platform.extension");
        if (natives != null) {
            conf.set("spark.executor.extraJavaOptions", "-Dorg.bytedeco.javacpp.platform.extension=" + natives);
        }
        for (Map.Entry<String, String> e : spec.settings().entrySet()) {
            if (e.getKey().startsWith("spark.")) {
                conf.set(e.getKey(), e.getValue());
            }
        }
        return conf;
    }

    /** Waits (polling the driver's own view, never a fixed sleep) until every executor asked for has joined. */
    private static List<String> awaitExecutors(DistributedSpec spec, JavaSparkContext sc, ClusterEvents events) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(spec.joinTimeoutSeconds());
        while (events.live().size() < spec.executors()) {
            if (sc.sc().isStopped()) {
                // Spark's shutdown hook (SIGTERM, Ctrl-C) or the master ended the application
                throw new TierFailure("the Spark driver stopped while its executors were joining", true, null);
            }
            if (System.nanoTime() > deadline) {
                Map<String, String> live = events.live();
                throw new TierFailure(
                        "only " + live.size() + " of " + spec.executors() + " executor(s) joined within "
                                + spec.joinTimeoutSeconds() + " s"
                                + (live.isEmpty() ? "" : " (" + events.names(live.keySet()) + ")")
                                + ": start more workers (traindeck cluster worker " + spec.address()
                                + "), free the busy ones, or ask for fewer"
                                + " (--executors)"
                                + (events.removed().isEmpty()
                                        ? ""
                                        : "; executors that failed to start: " + events.removed()),
                        true,
                        null);
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new TierFailure("interrupted while waiting for the executors", true, e);
            }
        }
        return events.live().keySet().stream()
                .limit(spec.executors())
                .map(events::name)
                .toList();
    }

    /**
     * Stops the driver, waiting at most {@link #STOP_SECONDS}: Spark's stop asks every executor to exit, and a stuck
     * one would hold a failed run's end for the RPC timeout (two minutes). The daemon thread finishes it meanwhile.
     */
    static void stop(JavaSparkContext sc) {
        String app = sc.getConf().get("spark.app.name");
        Thread stopper = new Thread(
                () -> {
                    try {
                        sc.stop();
                    } catch (RuntimeException e) {
                        LOG.warn("stopping the Spark driver: {}", e.toString());
                    }
                },
                "traindeck-spark-stop");
        stopper.setDaemon(true);
        stopping = stopper;
        stopper.start();
        try {
            stopper.join(TimeUnit.SECONDS.toMillis(STOP_SECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (stopper.isAlive()) {
            LOG.warn("the Spark driver for {} is still stopping after {} s; the run goes on ending", app, STOP_SECONDS);
        }
        ClusterEvents.forget(app);
    }
}
