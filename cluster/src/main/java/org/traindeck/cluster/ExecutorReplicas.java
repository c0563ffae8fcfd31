package org.traindeck.cluster;

import org.apache.spark.SparkEnv;
import org.traindeck.engine.parallel.ShardData;
import org.traindeck.engine.train.ExecutorReplica;
import scala.Tuple2;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * In each executor JVM: the model replica of each run's session, built on the session's first step and reused
 * (Spark has no per-executor state of its own). An executor serves one session; the map is for the odd case of two.
 */
final class ExecutorReplicas {

    private static final ConcurrentMap<String, ExecutorReplica> REPLICAS = new ConcurrentHashMap<>();

    private ExecutorReplicas() {
    }

    static ExecutorReplica of(String runId, String modelJson, ShardData data, boolean dataLossOnly, boolean oneDnn) {
        return REPLICAS.computeIfAbsent(runId, id -> new ExecutorReplica(modelJson, dataLossOnly, oneDnn, data, self()));
    }

    /**
     * At the session's start: this executor's name and what keeps it from training ("" when nothing): data files it
     * does not see as the driver does, or data it cannot load.
     */
    static Tuple2<String, String> prepare(String runId, String modelJson, ShardData data, boolean dataLossOnly, boolean oneDnn) {
        String problem = data.problemHere();
        if (problem == null) {
            try {
                of(runId, modelJson, data, dataLossOnly, oneDnn);
            } catch (RuntimeException e) {
                problem = "cannot load the training data: " + (e.getMessage() == null ? e.toString() : e.getMessage());
            }
        }
        return new Tuple2<>(self(), problem == null ? "" : problem);
    }

    /** "executor 1 on 10.0.0.7" */
    static String self() {
        SparkEnv env = SparkEnv.get();
        return env == null ? "the driver" : "executor " + env.executorId() + " on " + env.blockManager().blockManagerId().host();
    }
}
