package org.traindeck.cluster;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.apache.spark.SparkEnv;
import org.traindeck.engine.parallel.ShardData;
import org.traindeck.engine.parallel.ShardReplica;
import scala.Tuple3;

/**
 * In each executor JVM: the model replica of each run's session, built at the session's start and reused for the
 * whole run (Spark has no per-executor state of its own), moved to each next stage the driver sends. An executor
 * serves one session; the map is for the odd case of two.
 */
final class ExecutorReplicas {

    /** A replica and the stage change (0: the session's start, then 1, 2, … per stage the session moved to) it is at. */
    private record Held(int stageChange, ShardReplica replica) {}

    private static final ConcurrentMap<String, Held> REPLICAS = new ConcurrentHashMap<>();

    private ExecutorReplicas() {}

    /**
     * The run's replica at the session's {@code stageChange}: built if this executor has none, moved to the stage if
     * it is at an earlier one (so a step is right even on an executor that the stage change's own tasks missed).
     */
    static ShardReplica of(
            String runId, int stageChange, String modelJson, ShardData data, boolean dataLossOnly, boolean oneDnn) {
        return REPLICAS.compute(runId, (id, held) -> {
                    if (held == null) {
                        return new Held(
                                stageChange, ShardReplica.create(modelJson, dataLossOnly, oneDnn, data, self()));
                    }
                    if (held.stageChange() != stageChange) {
                        held.replica().moveTo(modelJson, dataLossOnly, data);
                        return new Held(stageChange, held.replica());
                    }
                    return held;
                })
                .replica();
    }

    /**
     * At the session's start and at each stage change: this executor's name, a build it runs that is not the driver's
     * ("" when the same), and what keeps it from training ("" when nothing): data files it does not see as the driver
     * does, or data it cannot load. A foreign build is said before anything is loaded with it.
     */
    static Tuple3<String, String, String> loadAndReport(
            String driverBuild,
            BuildIdentity.Source ownBuild,
            String runId,
            int stageChange,
            String modelJson,
            ShardData data,
            boolean dataLossOnly,
            boolean oneDnn) {
        String build = ownBuild.identity();
        if (!build.equals(driverBuild)) {
            return new Tuple3<>(self(), build, "");
        }
        String problem = data.problemHere();
        if (problem == null) {
            try {
                of(runId, stageChange, modelJson, data, dataLossOnly, oneDnn);
            } catch (RuntimeException e) {
                problem = "cannot load the training data: " + (e.getMessage() == null ? e.toString() : e.getMessage());
            }
        }
        return new Tuple3<>(self(), "", problem == null ? "" : problem);
    }

    /** "executor 1 on 10.0.0.7" */
    static String self() {
        SparkEnv env = SparkEnv.get();
        return env == null
                ? "the driver"
                : "executor " + env.executorId() + " on "
                        + env.blockManager().blockManagerId().host();
    }
}
