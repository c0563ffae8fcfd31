package org.traindeck.engine.parallel;

import java.util.Optional;
import java.util.ServiceLoader;

/**
 * A way of running TrainDeck's synchronous step across machines: each executor computes the gradient of its shard of
 * the global batch on a replica of the model, the backend brings back the sum, and the driver takes the one optimizer
 * step. Found through {@link ServiceLoader} so that the engine builds, tests and ships without any cluster framework:
 * the {@code cluster} module provides the Spark one.
 */
public interface DistributedBackend {

    /** Whether this backend runs the cluster at {@code address} (for Spark: "spark://HOST:PORT"). */
    boolean accepts(String address);

    /**
     * Connects to the cluster, waits until every executor the spec asks for has joined, and has each check its view
     * of the data files ({@link ShardData#problemHere()}) and build its {@code ExecutorReplica} before step 1.
     *
     * @throws TierFailure (never a hang) when the cluster cannot be reached, refuses this driver, too few executors
     *                     join within the spec's join timeout, or an executor cannot read the data as the driver does;
     *                     the message names the address, the machines and the paths
     */
    DistributedSession open(DistributedSpec spec);

    /** The backend for {@code address} on the class path, if any. */
    static Optional<DistributedBackend> forAddress(String address) {
        for (DistributedBackend b : ServiceLoader.load(DistributedBackend.class)) {
            if (b.accepts(address)) {
                return Optional.of(b);
            }
        }
        return Optional.empty();
    }
}
