package org.traindeck.engine.parallel;

import java.util.ServiceLoader;

/**
 * An executor's side of a distributed step: a replica of the run's model and the stage's training data, which takes
 * the driver's parameters and computes its shard's gradient. The engine provides it through {@link ServiceLoader},
 * so that a cluster backend needs nothing of the engine but this package (and engine.api). Not thread-safe.
 */
public interface ShardReplica {

    /**
     * Loads the data and builds the replica: a backend does it on every executor before the first step, after
     * {@link ShardData#problemHere()}, so that a machine that cannot train is said at the start.
     *
     * @param executor how this executor names itself in results and errors ("executor 1 on 10.0.0.7")
     * @throws RuntimeException when the data cannot be loaded here as on the driver (the message says why)
     */
    static ShardReplica create(
            String modelJson, boolean dataLossOnly, boolean oneDnn, ShardData data, String executor) {
        Factory factory = ServiceLoader.load(Factory.class, ShardReplica.class.getClassLoader())
                .findFirst()
                .orElseThrow(() ->
                        new IllegalStateException("no shard replica on the class path: the engine's jar is missing"));
        return factory.create(modelJson, dataLossOnly, oneDnn, data, executor);
    }

    /**
     * Takes the replica to another stage of its run without a new executor.
     *
     * @throws RuntimeException when the stage's data cannot be loaded here as on the driver
     */
    void moveTo(String modelJson, boolean dataLossOnly, ShardData stage);

    /** This shard's loss and gradient at the driver's parameters ({@code params} as the driver wrote them). */
    ShardResult compute(byte[] params, ShardWork work);

    /** The engine's replicas, listed in META-INF/services. */
    interface Factory {
        ShardReplica create(String modelJson, boolean dataLossOnly, boolean oneDnn, ShardData data, String executor);
    }
}
