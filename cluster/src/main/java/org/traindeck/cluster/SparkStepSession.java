package org.traindeck.cluster;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.IntStream;
import org.apache.spark.api.java.JavaFutureAction;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
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

    /** How the parameters reach the executors: "broadcast" (the default) or "tasks" (in each task). */
    static final String PARAMETERS_SETTING = "traindeck.parameters";

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
        SparkDriver.Joined driver = SparkDriver.start(spec);
        try {
            SparkStepSession session =
                    new SparkStepSession(spec, driver.sc(), driver.events(), driver.executors(), executorBuild);
            session.prepareExecutors();
            // from here a signal's stop checkpoint needs the driver: Spark's own shutdown hook waits for it
            session.stopGuard = SaveBeforeSparkStops.install();
            return session;
        } catch (RuntimeException e) {
            driver.sc().stop();
            throw e;
        }
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
                            + (events.busy().isEmpty() ? "none" : events.names(events.busy())),
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
        refuseWhatExecutorsReported(ready);
    }

    /** Each executor's (name, its build where it differs from the driver's, its data problem): any but none fails. */
    private void refuseWhatExecutorsReported(List<Tuple3<String, String, String>> ready) {
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
                                    : events.names(events.busy())),
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
        return StepSums.inShardOrder(results, System.nanoTime() - t0);
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

    /** Stops the driver (within {@link SparkDriver#stop}'s limit), then lets Spark's own shutdown hook go. */
    @Override
    public void close() {
        SparkDriver.stop(sc);
        if (stopGuard != null) {
            stopGuard.close();
        }
    }
}
