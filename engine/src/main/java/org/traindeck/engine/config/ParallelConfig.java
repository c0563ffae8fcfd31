package org.traindeck.engine.config;

/**
 * Data-parallel settings, used when a run has several devices. {@code mode} is the first tier tried: "sync" (the
 * default: TrainDeck's synchronous all-reduce, the same training as one device at the global batch), or DL4J's
 * ParallelWrapper modes "averaging" and "shared_gradients" (parameter averaging, not equivalent to single-device
 * training). {@code lrScaling} scales each stage's learning rate with the number of devices in the global batch
 * ("none", "linear", "sqrt"); {@code baselineSamplesPerSecond} (0 = measure it in the run) is one device's
 * throughput, for the scaling-efficiency metric. {@code cluster} ("spark://HOST:7077", empty: none) trains on a
 * cluster's {@code executors} executors instead of this machine's devices, with the shared secret in
 * {@code clusterSecretFile} (empty: where "traindeck cluster master" writes it). {@code syncBatchNorm} computes every
 * BatchNorm node's batch statistics over all devices of a synchronous step (a node's own "sync" overrides it).
 */
public record ParallelConfig(
        String mode,
        int averagingFrequency,
        int prefetch,
        String lrScaling,
        boolean fallback,
        double baselineSamplesPerSecond,
        String cluster,
        int executors,
        String clusterSecretFile,
        boolean syncBatchNorm) {

    public static final String SYNC = "sync";

    public boolean onCluster() {
        return cluster != null && !cluster.isBlank();
    }

    /** The same settings training on {@code address} with {@code executorCount} executors. */
    public ParallelConfig withCluster(String address, int executorCount) {
        return new ParallelConfig(
                mode,
                averagingFrequency,
                prefetch,
                lrScaling,
                fallback,
                baselineSamplesPerSecond,
                address,
                executorCount,
                clusterSecretFile,
                syncBatchNorm);
    }

    public boolean synchronous() {
        return SYNC.equals(mode);
    }

    /** The factor the learning rate is multiplied by on {@code devices} devices. */
    public double lrFactor(int devices) {
        return switch (lrScaling) {
            case "linear" -> devices;
            case "sqrt" -> Math.sqrt(devices);
            default -> 1;
        };
    }
}
