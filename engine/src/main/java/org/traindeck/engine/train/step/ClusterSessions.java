package org.traindeck.engine.train.step;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.traindeck.engine.config.DataConfig;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.SourceConfig;
import org.traindeck.engine.config.StageConfig;
import org.traindeck.engine.config.read.ConfigWriter;
import org.traindeck.engine.parallel.DataFile;
import org.traindeck.engine.parallel.DistributedBackend;
import org.traindeck.engine.parallel.DistributedSession;
import org.traindeck.engine.parallel.DistributedSpec;
import org.traindeck.engine.parallel.ShardData;
import org.traindeck.engine.parallel.TierFailure;
import org.traindeck.engine.sinks.RunFolder;
import org.traindeck.engine.train.batch.StagePlan;
import org.traindeck.engine.train.state.RunEvents;
import org.traindeck.engine.train.state.RunFailure;

/**
 * Opens a run's session on the cluster its config names, through the backend on the class path, and moves it from
 * stage to stage: one session, and so one start of the executors, per run.
 */
public final class ClusterSessions {

    /** A step's limit when the config sets none: a cluster step that takes longer is a dead or stuck machine. */
    static final int DEFAULT_STEP_TIMEOUT_SECONDS = 600;

    static final int JOIN_TIMEOUT_SECONDS = 90;

    private ClusterSessions() {}

    public static DistributedSession open(RunConfig config, ComputationGraph net, StagePlan plan, RunEvents events) {
        String address = config.parallel().cluster();
        DistributedBackend backend = DistributedBackend.forAddress(address)
                .orElseThrow(() -> new RunFailure("no cluster backend for " + address
                        + " on the class path: run through ./traindeck, which adds the cluster"
                        + " module when --cluster is given, or build it (mvn -pl cluster -am package)"));
        int configured = config.effectiveStepTimeoutSeconds();
        // well under the watchdog's limit (the failed session still has to stop), so that the step's own diagnosis,
        // which names the machine, is the one the user reads
        int stepTimeout = configured > 0 ? Math.max(1, configured * 2 / 3) : DEFAULT_STEP_TIMEOUT_SECONDS;
        String secret = config.parallel().clusterSecretFile();
        DistributedSpec spec = new DistributedSpec(
                address,
                config.parallel().executors(),
                config.name() + "-" + UUID.randomUUID(),
                net.getConfiguration().toJson(),
                shardData(config, plan),
                plan.stage.optimizer().weightDecay() > 0,
                config.performance().onednn(),
                secret == null || secret.isBlank() ? null : Path.of(secret).toAbsolutePath(),
                JOIN_TIMEOUT_SECONDS,
                stepTimeout,
                Map.of(
                        DistributedSpec.LOG_FILE,
                        events.runDir().resolve(RunFolder.LOG).toString()));
        events.logLine("cluster: connecting to " + address + " for " + spec.executors() + " executor(s), step timeout "
                + stepTimeout + " s");
        DistributedSession session;
        long t0 = System.nanoTime();
        try {
            session = backend.open(spec);
        } catch (TierFailure e) {
            throw new RunFailure("cannot train on the cluster " + address + ": " + e.getMessage(), e);
        }
        events.logLine(String.format(
                Locale.ROOT,
                "cluster: training on %s; each read %s as the driver did (ready in %.1f s)",
                String.join(", ", session.executors()),
                spec.data().files().isEmpty()
                        ? "the generated data"
                        : String.join(
                                ", ",
                                spec.data().files().stream().map(DataFile::path).toList()),
                (System.nanoTime() - t0) / 1e9));
        return session;
    }

    /** Sends the next stage's data and model to the session's executors, which stay up. */
    public static void nextStage(
            DistributedSession session, RunConfig config, ComputationGraph net, StagePlan plan, RunEvents events) {
        long t0 = System.nanoTime();
        try {
            session.nextStage(
                    net.getConfiguration().toJson(),
                    shardData(config, plan),
                    plan.stage.optimizer().weightDecay() > 0);
        } catch (TierFailure e) {
            throw new RunFailure(
                    "cannot go on to stage " + (plan.index + 1) + " on the cluster "
                            + config.parallel().cluster() + ": " + e.getMessage(),
                    e);
        }
        events.logLine(String.format(
                Locale.ROOT,
                "cluster: stage %d on the same executors (%s), ready in %.1f s",
                plan.index + 1,
                String.join(", ", session.executors()),
                (System.nanoTime() - t0) / 1e9));
    }

    /**
     * What the executors read their shards from: the driver's view of the stage's training files, for them to match.
     * Validation runs on the driver alone: executors neither load nor check a validation source.
     */
    public static ShardData shardData(RunConfig config, StagePlan plan) {
        DataConfig data = config.dataFor(plan.stage);
        List<DataFile> files = new ArrayList<>();
        for (Path p : paths(config, data.train())) {
            files.add(driverView(p));
        }
        return new ShardData(
                ConfigWriter.toJsonWithAbsolutePaths(trainingOnly(config)),
                plan.index,
                plan.data.train().size(),
                files);
    }

    /**
     * The config without its validation sources, for the executors (a validation split stays: it decides which
     * samples train). The training data never depends on them: they are read after it, and checked against it.
     */
    static RunConfig trainingOnly(RunConfig c) {
        List<StageConfig> stages = new ArrayList<>(c.stages().size());
        for (StageConfig s : c.stages()) {
            stages.add(
                    s.data() == null
                            ? s
                            : new StageConfig(
                                    s.name(),
                                    s.epochs(),
                                    s.batchSize(),
                                    s.optimizer(),
                                    s.schedule(),
                                    s.clipNorm(),
                                    s.accumulationSteps(),
                                    s.precision(),
                                    s.augmentation(),
                                    s.validationInterval(),
                                    trainingOnly(s.data()),
                                    s.ema(),
                                    s.model()));
        }
        return new RunConfig(
                c.name(),
                c.outputDir(),
                c.seed(),
                c.devices(),
                c.model(),
                trainingOnly(c.data()),
                stages,
                c.logging(),
                c.checkpoint(),
                c.onNonFinite(),
                c.parallel(),
                c.nccl(),
                c.performance(),
                c.stepTimeoutSeconds(),
                c.baseDir());
    }

    private static DataConfig trainingOnly(DataConfig d) {
        return d == null || d.validation() == null
                ? d
                : new DataConfig(d.train(), null, d.validationSplit(), d.shuffle(), d.test());
    }

    private static DataFile driverView(Path p) {
        try {
            return DataFile.read(p);
        } catch (IOException e) {
            throw new RunFailure("cannot read " + p + " on the driver, which loaded it moments ago: " + e.getMessage());
        }
    }

    private static List<Path> paths(RunConfig config, SourceConfig source) {
        return source.paths().stream().map(config::resolve).toList();
    }
}
