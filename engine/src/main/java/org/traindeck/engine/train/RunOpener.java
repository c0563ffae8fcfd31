package org.traindeck.engine.train;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.traindeck.engine.api.devices.NcclReport;
import org.traindeck.engine.checkpoint.Checkpoint;
import org.traindeck.engine.checkpoint.CheckpointException;
import org.traindeck.engine.checkpoint.RunIdentity;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigWriter;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.devices.DeviceResolver;
import org.traindeck.engine.parallel.NcclEnvironment;
import org.traindeck.engine.sinks.MetricFiles;
import org.traindeck.engine.sinks.RunDirectory;
import org.traindeck.engine.sinks.RunFolder;
import org.traindeck.engine.sinks.RunLock;
import org.traindeck.engine.sinks.SinkKind;
import org.traindeck.engine.sinks.SinkKinds;
import org.traindeck.engine.train.batch.PreparedStart;
import org.traindeck.engine.train.batch.StartChecks;

/**
 * How a {@link TrainingRun} is made before it trains: a new run (its devices, its data read and model compiled once,
 * then its own folder, config.json and metric files) or a run resumed from a checkpoint (its folder locked, its next
 * resume config written, its metric files trimmed to the checkpoint's step). What either made is undone if it fails.
 */
final class RunOpener {

    private RunOpener() {}

    static TrainingRun open(RunRequest request) throws IOException {
        RunConfig config = request.config();
        // the NCCL variables and the CUDA device order go into the environment before ND4J loads
        NcclReport nccl = NcclEnvironment.apply(config.nccl(), Nd4jRuntime.isLoaded());
        DeviceResolver.Resolved devices = RunDevices.resolve(config.devices(), request.discovery());
        Nd4jRuntime.init();
        PreparedStart start = StartChecks.readAndCompile(request.parsed(), request.discovery(), request.work());
        try {
            Path dir = request.dir() != null ? request.dir() : RunDirectory.create(config.outputPath(), config.name());
            TrainingRun run = createIn(dir, config, devices, nccl, request.faults(), request.sinkKinds())
                    .measuredBy(request.discovery());
            return run.withPrepared(start, request.work());
        } catch (IOException | RuntimeException e) {
            start.loaded().close();
            throw e;
        }
    }

    /** Takes the folder's lock, writes its config.json and identity, and opens the metric files. */
    private static TrainingRun createIn(
            Path dir,
            RunConfig config,
            DeviceResolver.Resolved devices,
            NcclReport nccl,
            RunFaults faults,
            List<SinkKind> sinkKinds)
            throws IOException {
        RunLock lock = RunLock.acquire(dir);
        try {
            Files.writeString(
                    RunFolder.of(dir).config(), ConfigWriter.toJsonWithAbsolutePaths(config), StandardCharsets.UTF_8);
            RunIdentity.create(dir);
            TrainingRun run = new TrainingRun(config, dir, devices, null, faults, nccl, lock, sinkKinds);
            run.openSinks(-1);
            return run;
        } catch (IOException | RuntimeException e) {
            lock.close();
            throw e;
        }
    }

    /** The resumed run: see {@link TrainingRun#resume(Path, ResumeOptions, DeviceDiscovery, RunFaults)}. */
    static TrainingRun resume(Path target, ResumeOptions options, DeviceDiscovery discovery, RunFaults faults)
            throws IOException, CheckpointException {
        ResumePlanner.refuseIfInUse(target);
        ResumePlanner.Plan plan = ResumePlanner.plan(target, options);
        RunConfig config = plan.config();
        Checkpoint c = plan.contents().checkpoint();
        NcclReport nccl = NcclEnvironment.apply(config.nccl(), Nd4jRuntime.isLoaded());
        DeviceResolver.Resolved devices = RunDevices.resolve(config.devices(), discovery);
        ResumePlanner.checkMidEpochDevices(plan, devices.workers());
        Path runDir = plan.runDir();
        // one writer per run folder: taken before anything in it changes
        RunLock lock = RunLock.acquire(runDir);
        Path resumeConfig = null;
        try {
            resumeConfig = ResumeConfigFile.writeNext(runDir, config);
            int dropped = MetricFiles.truncateAfter(runDir, c.globalStep());
            TrainingRun run =
                    new TrainingRun(config, runDir, devices, plan.contents(), faults, nccl, lock, SinkKinds.ALL);
            run.openSinks(c.globalStep());
            run.resumingFrom(
                    plan.checkpointFile(),
                    "resuming from " + plan.checkpointFile() + " (stage " + c.stageName() + ", epoch " + (c.epoch() + 1)
                            + ", step " + c.globalStep() + "); " + dropped
                            + " metric line(s) after that step were moved to metrics.*.after-step-"
                            + c.globalStep() + ", to be recomputed");
            return run.measuredBy(discovery);
        } catch (IOException | RuntimeException e) {
            // a resume that did not start leaves no config of its own (a later one would take its number)
            if (resumeConfig != null) {
                Files.deleteIfExists(resumeConfig);
            }
            lock.close();
            throw e;
        }
    }
}
