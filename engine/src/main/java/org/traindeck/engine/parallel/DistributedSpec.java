package org.traindeck.engine.parallel;

import java.nio.file.Path;
import java.util.Map;

/**
 * What a distributed backend needs to start a run's session.
 *
 * @param address             the cluster ("spark://HOST:PORT")
 * @param executors           how many executors (shards) every step uses
 * @param runId               unique per session: executors cache their replica under it
 * @param modelJson           the first stage's model architecture (DL4J ComputationGraph JSON); parameters come with each step
 * @param data                where the executors read the first stage's shards, and the files they must see as the driver does
 * @param dataLossOnly        report the first stage's loss without the weight-decay penalty
 * @param oneDnn              install oneDNN's layer helpers on the replicas, as on the driver
 * @param secretFile          the cluster's shared secret (written by "traindeck cluster master"); null: the default
 * @param joinTimeoutSeconds  how long to wait for every executor to join, and then for each to load the data and model
 * @param stepTimeoutSeconds  how long one step may take before the run is stopped
 * @param settings            backend settings added or overridden (tests; "spark.*" keys for Spark)
 */
public record DistributedSpec(
        String address,
        int executors,
        String runId,
        String modelJson,
        ShardData data,
        boolean dataLossOnly,
        boolean oneDnn,
        Path secretFile,
        int joinTimeoutSeconds,
        int stepTimeoutSeconds,
        Map<String, String> settings) {

    /** The setting that names the run's log file: the backend's own logging (its stack traces) goes there. */
    public static final String LOG_FILE = "traindeck.logFile";

    public DistributedSpec {
        settings = Map.copyOf(settings);
    }
}
