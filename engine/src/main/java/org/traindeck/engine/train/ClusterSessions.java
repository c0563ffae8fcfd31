package org.traindeck.engine.train;

import org.deeplearning4j.nn.graph.ComputationGraph;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.parallel.DistributedBackend;
import org.traindeck.engine.parallel.DistributedSession;
import org.traindeck.engine.parallel.DistributedSpec;
import org.traindeck.engine.parallel.TierFailure;

import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;

/** Opens a run's session on the cluster its config names, through the backend on the class path. */
final class ClusterSessions {

    /** A step's limit when the config sets none: a cluster step that takes longer is a dead or stuck machine. */
    static final int DEFAULT_STEP_TIMEOUT_SECONDS = 600;
    static final int JOIN_TIMEOUT_SECONDS = 90;

    private ClusterSessions() {
    }

    static DistributedSession open(RunConfig config, ComputationGraph net, StagePlan plan, RunEvents events) {
        String address = config.parallel().cluster();
        DistributedBackend backend = DistributedBackend.forAddress(address).orElseThrow(() -> new RunFailure(
                "no cluster backend for " + address + " on the class path: run through ./traindeck, which adds the cluster"
                        + " module when --cluster is given, or build it (mvn -pl cluster -am package)"));
        int configured = config.effectiveStepTimeoutSeconds();
        // well under the watchdog's limit (the failed session still has to stop), so that the step's own diagnosis,
        // which names the machine, is the one the user reads
        int stepTimeout = configured > 0 ? Math.max(1, configured * 2 / 3) : DEFAULT_STEP_TIMEOUT_SECONDS;
        String secret = config.parallel().clusterSecretFile();
        DistributedSpec spec = new DistributedSpec(address, config.parallel().executors(),
                config.name() + "-" + plan.index + "-" + UUID.randomUUID(), net.getConfiguration().toJson(),
                plan.stage.optimizer().weightDecay() > 0, config.performance().onednn(),
                secret == null || secret.isBlank() ? null : Path.of(secret).toAbsolutePath(), JOIN_TIMEOUT_SECONDS, stepTimeout, Map.of());
        events.logLine("cluster: connecting to " + address + " for " + spec.executors() + " executor(s), step timeout " + stepTimeout + " s");
        DistributedSession session;
        try {
            session = backend.open(spec);
        } catch (TierFailure e) {
            throw new RunFailure("cannot train on the cluster " + address + ": " + e.getMessage(), e);
        }
        events.logLine("cluster: training on " + String.join(", ", session.executors()));
        return session;
    }
}
