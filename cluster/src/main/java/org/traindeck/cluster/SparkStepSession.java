package org.traindeck.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.IntStream;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaFutureAction;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.traindeck.engine.parallel.DistributedSession;
import org.traindeck.engine.parallel.DistributedSpec;
import org.traindeck.engine.parallel.ShardData;
import org.traindeck.engine.parallel.ShardResult;
import org.traindeck.engine.parallel.ShardWork;
import org.traindeck.engine.parallel.StepSum;
import org.traindeck.engine.parallel.TierFailure;
import scala.Tuple2;
import scala.Tuple3;

/**
 * A run's session on a Spark standalone cluster: one Spark job per step. The parameters go out as a broadcast, each
 * of the N tasks (one per executor, one core each) computes its shard on the executor's cached replica, and the
 * shards' gradients come back to the driver, which sums them in shard order (so a run is reproducible) for the one
 * optimizer step. {@code spark.task.maxFailures=1}: a task that dies fails the step at once, and the step has a
 * deadline, so a dead or stuck machine ends the run with its name instead of a hang. One session (one Spark driver,
 * its executors started once) serves the whole run: each next stage's model and data go out as new broadcasts, and
 * the executors move their replicas to it ({@link #nextStage}).
 */
final class SparkStepSession implements DistributedSession {

    private static final Logger LOG = LoggerFactory.getLogger(SparkStepSession.class);
    /** How the parameters reach the executors: "broadcast" (the default) or "tasks" (in each task). */
    static final String PARAMETERS_SETTING = "traindeck.parameters";

    private static final int STOP_SECONDS = 5;
    /** How long a new run waits for the previous run's driver to finish stopping: Spark allows one per JVM. */
    private static final int PREVIOUS_STOP_SECONDS = 150;
    /** The previous driver's stop, still going on after its run ended (a stuck executor holds it). */
    private static volatile Thread stopping;

    private final DistributedSpec spec;
    private final JavaSparkContext sc;
    private final ClusterEvents events;
    private final List<String> executors;
    private final boolean parametersInTasks;
    /** This driver's build, and where each executor reads its own (a test's seam). */
    private final String driverBuild;

    private final BuildIdentity.Source executorBuild;
    /** The current stage's model, data and loss setting, and how many times the session moved to a next stage. */
    private Broadcast<String> model;

    private Broadcast<ShardData> data;
    private boolean dataLossOnly;
    private int stageChange;
    /** Holds Spark's own shutdown hook until the session has ended. */
    private SaveBeforeSparkStops stopGuard;

    private SparkStepSession(
            DistributedSpec spec,
            JavaSparkContext sc,
            ClusterEvents events,
            List<String> executors,
            BuildIdentity.Source executorBuild) {
        this.spec = spec;
        this.driverBuild = BuildIdentity.local();
        this.executorBuild = executorBuild;
        this.sc = sc;
        this.events = events;
        this.executors = executors;
        this.model = sc.broadcast(spec.modelJson());
        this.data = sc.broadcast(spec.data());
        this.dataLossOnly = spec.dataLossOnly();
        this.parametersInTasks = "tasks".equals(spec.settings().get(PARAMETERS_SETTING));
    }

    static SparkStepSession open(DistributedSpec spec, BuildIdentity.Source executorBuild) {
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
            List<String> joined = awaitExecutors(spec, sc, events);
            SparkStepSession session = new SparkStepSession(spec, sc, events, joined, executorBuild);
            session.prepareExecutors();
            // from here a signal's stop checkpoint needs the driver: Spark's own shutdown hook waits for it
            session.stopGuard = SaveBeforeSparkStops.install();
            return session;
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
                                + (live.isEmpty() ? "" : " (" + describe(live.keySet(), events) + ")")
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

    private static String describe(java.util.Collection<String> ids, ClusterEvents events) {
        return String.join(", ", ids.stream().map(events::name).toList());
    }

    /**
     * Before step 1 and before each next stage's first step, one task on every executor checks that it sees the data
     * files as the driver does (same size and fingerprint), loads the stage's data (at a stage change, only when its
     * data config is new to the executor) and builds or moves its replica: a machine that cannot read the data is
     * named now, with the path, rather than failing the stage's first step (which then carries no start-up cost).
     */
    private void prepareExecutors() {
        String runId = spec.runId();
        int change = stageChange;
        Broadcast<String> json = model;
        Broadcast<ShardData> shardData = data;
        boolean lossOnly = dataLossOnly;
        boolean oneDnn = spec.oneDnn();
        String expected = driverBuild;
        BuildIdentity.Source own = executorBuild;
        List<Integer> slots = IntStream.range(0, spec.executors()).boxed().toList();
        JavaFutureAction<List<Tuple3<String, String, String>>> job = sc.parallelize(slots, slots.size())
                .map(i -> ExecutorReplicas.loadAndReport(
                        expected, own, runId, change, json.value(), shardData.value(), lossOnly, oneDnn))
                .collectAsync();
        List<Tuple3<String, String, String>> ready;
        // a start-up cost (ND4J's native libraries, the data), like joining: it has the join's limit, not a step's
        int limit = Math.max(spec.joinTimeoutSeconds(), spec.stepTimeoutSeconds());
        try {
            ready = job.get(limit, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            job.cancel(true);
            throw new TierFailure(
                    "the executors did not load the data and the model within " + limit + " s; still loading: "
                            + (events.busy().isEmpty() ? "none" : describe(events.busy(), events)),
                    true,
                    e);
        } catch (ExecutionException e) {
            throw new TierFailure(
                    "while the executors loaded the data: " + FailureDiagnosis.of(e.getCause(), events),
                    true,
                    e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            job.cancel(true);
            throw new TierFailure("interrupted while the executors loaded the data", true, e);
        }
        List<String> foreign = ready.stream()
                .filter(t -> !t._2().isEmpty())
                .map(t -> t._1() + " runs " + t._2())
                .toList();
        if (!foreign.isEmpty()) {
            throw new TierFailure(
                    String.join("; ", foreign) + ", but this driver runs " + driverBuild + ": replicas built from"
                            + " different code can differ silently, so every machine must run the same TrainDeck build; install this one"
                            + " there and start its worker again",
                    true,
                    null);
        }
        List<String> problems = ready.stream()
                .filter(t -> !t._3().isEmpty())
                .map(t -> t._1() + " " + t._3())
                .toList();
        if (!problems.isEmpty()) {
            throw new TierFailure(
                    String.join("; ", problems) + ". Every executor reads the training data from the driver's"
                            + " paths: put the data on storage every machine reaches at the same path (a shared or network file system,"
                            + " or the same copy on each), then start again",
                    true,
                    null);
        }
    }

    @Override
    public List<String> executors() {
        return executors;
    }

    @Override
    public void nextStage(String modelJson, ShardData stage, boolean lossOnly) {
        driverRuns("stage " + (stage.stage() + 1));
        noExecutorLost();
        masterAnswers("stage " + (stage.stage() + 1));
        Broadcast<String> oldModel = model;
        Broadcast<ShardData> oldData = data;
        model = sc.broadcast(modelJson);
        data = sc.broadcast(stage);
        dataLossOnly = lossOnly;
        stageChange++;
        oldModel.destroy();
        oldData.destroy();
        prepareExecutors();
    }

    /** A driver that Spark stopped (its shutdown hook ran past its wait, or it gave the application up) takes no job. */
    private void driverRuns(String before) {
        if (sc.sc().isStopped()) {
            throw new TierFailure(
                    "the Spark driver had stopped before " + before + " (the process is ending, or the master ended"
                            + " the application)",
                    true,
                    null);
        }
    }

    /**
     * Spark would quietly move a lost executor's shard to another or a replacement; the run stops instead, so that a
     * machine that died is said, and the cluster a run resumes on is the one its user chose.
     */
    private void noExecutorLost() {
        Map<String, String> lost = events.removed();
        if (!lost.isEmpty()) {
            Map.Entry<String, String> e = lost.entrySet().iterator().next();
            throw new TierFailure(events.name(e.getKey()) + " was lost (" + e.getValue() + ")", true, null);
        }
    }

    @Override
    public StepSum step(long step, byte[] params, List<ShardWork> shards) {
        driverRuns("step " + step);
        noExecutorLost();
        masterAnswers("step " + step);
        long t0 = System.nanoTime();
        String runId = spec.runId();
        int change = stageChange;
        Broadcast<String> json = model;
        Broadcast<ShardData> shardData = data;
        boolean lossOnly = dataLossOnly;
        boolean oneDnn = spec.oneDnn();
        Broadcast<byte[]> parameters;
        JavaFutureAction<List<ShardResult>> job;
        if (parametersInTasks) {
            // measured against the broadcast (README): each task carries its own copy, one message instead of a fetch
            parameters = null;
            List<Tuple2<byte[], ShardWork>> tasks =
                    shards.stream().map(w -> new Tuple2<>(params, w)).toList();
            job = sc.parallelize(tasks, tasks.size())
                    .map(t -> ExecutorReplicas.of(runId, change, json.value(), shardData.value(), lossOnly, oneDnn)
                            .compute(t._1(), t._2()))
                    .collectAsync();
        } else {
            Broadcast<byte[]> broadcast = sc.broadcast(params);
            parameters = broadcast;
            job = sc.parallelize(shards, shards.size())
                    .map(w -> ExecutorReplicas.of(runId, change, json.value(), shardData.value(), lossOnly, oneDnn)
                            .compute(broadcast.value(), w))
                    .collectAsync();
        }
        List<ShardResult> results;
        try {
            results = job.get(spec.stepTimeoutSeconds(), TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            job.cancel(true);
            throw new TierFailure(
                    "step " + step + " did not finish within its " + spec.stepTimeoutSeconds() + " s; still computing: "
                            + (events.busy().isEmpty()
                                    ? "none (the cluster may have lost its executors)"
                                    : describe(events.busy(), events)),
                    true,
                    e);
        } catch (ExecutionException e) {
            throw new TierFailure(FailureDiagnosis.of(e.getCause(), events), true, e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            job.cancel(true);
            throw new TierFailure("interrupted during step " + step, true, e);
        } finally {
            if (parameters != null) {
                parameters.destroy();
            }
        }
        return sum(results, System.nanoTime() - t0);
    }

    /**
     * Running executors go on without their master, but nothing could replace one that dies, and the workers that
     * launched them are orphaned: a run whose master is gone stops, with the master named.
     */
    private void masterAnswers(String before) {
        URI master = URI.create(spec.address());
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(master.getHost(), master.getPort()), 5000);
        } catch (IOException e) {
            throw new TierFailure(
                    "the master at " + master.getHost() + ":" + master.getPort() + " stopped answering before " + before
                            + " (" + e.getMessage() + ")",
                    true,
                    e);
        }
    }

    private static StepSum sum(List<ShardResult> results, long wall) {
        double lossSum = 0;
        int examples = 0;
        int micro = 0;
        long[] perShard = new long[results.size()];
        long[] compute = new long[results.size()];
        long slowest = 0;
        INDArray sum = null;
        for (int i = 0; i < results.size(); i++) {
            ShardResult r = results.get(i);
            lossSum += r.lossSum();
            examples += r.examples();
            micro += r.microBatches();
            perShard[i] = r.examples();
            compute[i] = r.computeNanos();
            slowest = Math.max(slowest, r.computeNanos());
            if (r.gradient() != null) {
                INDArray g = Nd4j.fromByteArray(r.gradient());
                sum = sum == null ? g : sum.addi(g);
            }
        }
        try {
            return new StepSum(
                    lossSum, examples, micro, Nd4j.toByteArray(sum), perShard, compute, Math.max(0, wall - slowest));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Stops the driver, waiting at most {@link #STOP_SECONDS}: Spark's stop asks every executor to exit, and a stuck
     * one would hold a failed run's end for the RPC timeout (two minutes). The daemon thread finishes it meanwhile.
     */
    @Override
    public void close() {
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
        if (stopGuard != null) {
            stopGuard.close();
        }
    }
}
