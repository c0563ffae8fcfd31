package org.traindeck.engine.config;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A validated TrainDeck run config. Relative paths inside it are resolved against {@link #baseDir()}, the folder of
 * the config file (so a config and its data can move together). {@code onNonFinite} is "stop" or "skip".
 */
public record RunConfig(
        String name,
        @JsonSerialize(using = ConfigPathSerializer.class) String outputDir,
        long seed,
        DeviceSelection devices,
        ModelConfig model,
        DataConfig data,
        List<StageConfig> stages,
        LoggingConfig logging,
        CheckpointPolicy checkpoint,
        String onNonFinite,
        ParallelConfig parallel,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) NcclConfig nccl,
        PerformanceConfig performance,
        int stepTimeoutSeconds,
        @JsonIgnore Path baseDir) {

    public RunConfig {
        stages = List.copyOf(stages);
        baseDir = baseDir.toAbsolutePath().normalize();
    }

    public Path resolve(String path) {
        return baseDir.resolve(path).normalize();
    }

    public Path outputPath() {
        return resolve(outputDir);
    }

    /** The same config writing its runs under {@code dir} (absolute, or relative to the config's folder). */
    public RunConfig withOutputDir(String dir) {
        return new RunConfig(
                name,
                dir,
                seed,
                devices,
                model,
                data,
                stages,
                logging,
                checkpoint,
                onNonFinite,
                parallel,
                nccl,
                performance,
                stepTimeoutSeconds,
                baseDir);
    }

    /** The same config with stage {@code index} trained for {@code epochs} epochs. */
    public RunConfig withStageEpochs(int index, int epochs) {
        List<StageConfig> s = new ArrayList<>(stages);
        StageConfig o = s.get(index);
        s.set(
                index,
                new StageConfig(
                        o.name(),
                        epochs,
                        o.batchSize(),
                        o.optimizer(),
                        o.schedule(),
                        o.clipNorm(),
                        o.accumulationSteps(),
                        o.precision(),
                        o.augmentation(),
                        o.validationInterval(),
                        o.data(),
                        o.ema(),
                        o.model()));
        return new RunConfig(
                name,
                outputDir,
                seed,
                devices,
                model,
                data,
                s,
                logging,
                checkpoint,
                onNonFinite,
                parallel,
                nccl,
                performance,
                stepTimeoutSeconds,
                baseDir);
    }

    /** The same config on other devices (a command-line override). */
    public RunConfig withDevices(DeviceSelection newDevices) {
        return new RunConfig(
                name,
                outputDir,
                seed,
                newDevices,
                model,
                data,
                stages,
                logging,
                checkpoint,
                onNonFinite,
                parallel,
                nccl,
                performance,
                stepTimeoutSeconds,
                baseDir);
    }

    /** The same config with other data-parallel settings (a cluster given on the command line). */
    public RunConfig withParallel(ParallelConfig newParallel) {
        return new RunConfig(
                name,
                outputDir,
                seed,
                devices,
                model,
                data,
                stages,
                logging,
                checkpoint,
                onNonFinite,
                newParallel,
                nccl,
                performance,
                stepTimeoutSeconds,
                baseDir);
    }

    /** The same config under another run name. */
    public RunConfig withName(String newName) {
        return new RunConfig(
                newName,
                outputDir,
                seed,
                devices,
                model,
                data,
                stages,
                logging,
                checkpoint,
                onNonFinite,
                parallel,
                nccl,
                performance,
                stepTimeoutSeconds,
                baseDir);
    }

    /** Watchdog limit for multi-device runs that set none: NCCL's own recommended timeout. */
    public static final int DEFAULT_MULTI_DEVICE_TIMEOUT_SECONDS = 1800;

    /**
     * The watchdog's limit per step in seconds: stepTimeoutSeconds, else NCCL_TIMEOUT, else 1800 s when several
     * devices may be used (a failed worker can leave the others waiting for ever), else 0 (off).
     */
    public int effectiveStepTimeoutSeconds() {
        if (stepTimeoutSeconds > 0) {
            return stepTimeoutSeconds;
        }
        if (nccl.timeoutSeconds() > 0) {
            return nccl.timeoutSeconds();
        }
        return devices.maybeSeveral() ? DEFAULT_MULTI_DEVICE_TIMEOUT_SECONDS : 0;
    }

    /** Whether a non-finite loss skips the batch ("skip") or stops the run ("stop"). */
    public boolean skipNonFinite() {
        return "skip".equals(onNonFinite);
    }

    /** The first stage of the network stage {@code index} trains: the last stage up to it with a model, else 0. */
    public int networkStart(int index) {
        for (int i = index; i > 0; i--) {
            if (stages.get(i).model() != null) {
                return i;
            }
        }
        return 0;
    }

    /** Whether stage {@code index} starts a network of its own (the first stage always does). */
    public boolean startsNetwork(int index) {
        return index == 0 || stages.get(index).model() != null;
    }

    /** The model stage {@code index} trains: the one its network started with (a stage's own, else the run's). */
    public ModelConfig modelAt(int index) {
        StageConfig start = stages.get(networkStart(index));
        return start.model() != null ? start.model() : model;
    }

    /** Where the model of stage {@code index} is written: "stages[i].model", or "model" for the run's. */
    public String modelPathAt(int index) {
        int start = networkStart(index);
        return stages.get(start).model() != null ? "stages[" + start + "].model" : "model";
    }

    /** Whether the stages train more than one network (stages with models of their own: a cascade). */
    public boolean cascade() {
        for (int i = 1; i < stages.size(); i++) {
            if (stages.get(i).model() != null) {
                return true;
            }
        }
        return false;
    }

    /** The data a stage trains on: its own, or the run's. */
    public DataConfig dataFor(StageConfig stage) {
        return stage.data() != null ? stage.data() : data;
    }
}
