package org.traindeck.cluster;

import org.apache.spark.SparkEnv;
import org.traindeck.engine.train.ExecutorReplica;

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

    static ExecutorReplica of(String runId, String modelJson, boolean dataLossOnly, boolean oneDnn) {
        return REPLICAS.computeIfAbsent(runId, id -> new ExecutorReplica(modelJson, dataLossOnly, oneDnn, self()));
    }

    /** "executor 1 on 10.0.0.7" */
    static String self() {
        SparkEnv env = SparkEnv.get();
        return env == null ? "the driver" : "executor " + env.executorId() + " on " + env.blockManager().blockManagerId().host();
    }
}
