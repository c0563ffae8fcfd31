package org.traindeck.cluster;

import org.traindeck.engine.parallel.DistributedBackend;
import org.traindeck.engine.parallel.DistributedSession;
import org.traindeck.engine.parallel.DistributedSpec;

/** TrainDeck's synchronous step on a Spark standalone cluster ("spark://HOST:PORT"). */
public final class SparkBackend implements DistributedBackend {

    private final BuildIdentity.Source executorBuild;

    public SparkBackend() {
        this(BuildIdentity::local);
    }

    /** {@code executorBuild}: where each executor reads the identity of the build it runs (a test plays another). */
    SparkBackend(BuildIdentity.Source executorBuild) {
        this.executorBuild = executorBuild;
    }

    @Override
    public boolean accepts(String address) {
        return address != null && address.startsWith("spark://");
    }

    @Override
    public DistributedSession open(DistributedSpec spec) {
        return SparkStepSession.open(spec, executorBuild);
    }
}
