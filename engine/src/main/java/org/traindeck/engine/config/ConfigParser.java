package org.traindeck.engine.config;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads TrainDeck's JSON run config strictly and reports every problem in one pass, each with its JSON path and
 * position. Relative paths in the config are resolved against the config file's folder. Every bound, choice and
 * default comes from the bundled schema; the section readers add what a schema cannot say, and {@link CrossChecks}
 * what needs the whole config.
 */
public final class ConfigParser {

    static final Pattern RUN_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

    private final Problems problems;
    private final Path baseDir;

    private ConfigParser(Problems problems, Path baseDir) {
        this.problems = problems;
        this.baseDir = baseDir.toAbsolutePath().normalize();
    }

    /**
     * The largest config read: real ones are a few kB (every option of a ten-stage run is under 20 kB), and a
     * multi-megabyte file is the wrong file, whose parse would take minutes and gigabytes.
     */
    public static final int MAX_CONFIG_BYTES = 1 << 20;

    /** Reads and validates a config file. */
    public static ValidationResult load(Path file) {
        Path dir = file.toAbsolutePath().getParent();
        String text;
        try {
            long size = Files.size(file);
            if (size > MAX_CONFIG_BYTES) {
                return failure(tooLarge(file.toString(), size));
            }
            byte[] bytes = Files.readAllBytes(file);
            text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
        } catch (NoSuchFileException e) {
            return failure("no such file: " + file);
        } catch (CharacterCodingException e) {
            return failure(file + " is not UTF-8 text");
        } catch (IOException e) {
            return failure("cannot read " + file + ": " + e.getMessage());
        }
        return parse(text, dir);
    }

    private static ValidationResult failure(String message) {
        return new ValidationResult(null, List.of(ConfigProblem.error("", message, null)));
    }

    private static String tooLarge(String what, long size) {
        return String.format(Locale.ROOT, "%s is %.1f MB, but a run config is at most %d kB: is it the right file?", what,
                size / 1e6, MAX_CONFIG_BYTES / 1024);
    }

    /** Validates config text; relative paths resolve against {@code baseDir}. */
    public static ValidationResult parse(String text, Path baseDir) {
        return parse(text, baseDir, ConfigSchema.root());
    }

    /** As {@link #parse(String, Path)}, with the bounds and choices of the given schema (a test's edited copy). */
    static ValidationResult parse(String text, Path baseDir, SchemaNode schema) {
        if (text.length() > MAX_CONFIG_BYTES) {
            return failure(tooLarge("the config", text.length()));
        }
        LocatedJsonParser.Result parsed = LocatedJsonParser.parse(text);
        if (parsed.syntaxError() != null) {
            return new ValidationResult(null, List.of(parsed.syntaxError()));
        }
        Problems problems = new Problems(parsed.locations());
        JsonNode root = parsed.root();
        if (!root.isObject()) {
            problems.error("", "the config must be a JSON object {...}, not " + JsonObjectReader.describe(root));
            return new ValidationResult(null, problems.all());
        }
        RunConfig config = new ConfigParser(problems, baseDir).readRun(new JsonObjectReader(problems, "", root, schema));
        return new ValidationResult(problems.hasErrors() ? null : config, problems.all());
    }

    private RunConfig readRun(JsonObjectReader r) {
        String name = r.requiredString("name");
        if (name != null && !RUN_NAME.matcher(name).matches()) {
            problems.error(r.pathOf("name"), "must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit");
        }
        String outputDir = r.string("outputDir");
        if (outputDir != null && outputDir.isBlank()) {
            problems.error(r.pathOf("outputDir"), "must not be empty");
        }
        Long seed = r.longValue("seed");
        DeviceSelection devices = readDevices(r);
        JsonObjectReader modelReader = r.requiredObject("model");
        ModelConfig model = modelReader == null ? null : readModel(modelReader);
        JsonObjectReader dataReader = r.requiredObject("data");
        SourceReader sources = new SourceReader(problems, baseDir);
        DataConfig data = dataReader == null ? null : sources.readData(dataReader);
        List<StageConfig> stages = new StageReader(problems, sources).readStages(r);
        LoggingConfig logging = readLogging(r.section("logging"));
        CheckpointPolicy checkpoint = readCheckpoint(r.section("checkpoint"));
        String onNonFinite = r.choice("onNonFinite");
        ParallelConfig parallel = readParallel(r.section("parallel"));
        NcclConfig nccl = new NcclReader(problems).readNccl(r.section("nccl"));
        PerformanceConfig performance = readPerformance(r.section("performance"));
        Integer stepTimeout = r.integer("stepTimeoutSeconds");
        r.finish();

        if (problems.hasErrors()) {
            return null;
        }
        RunConfig config = new RunConfig(name, outputDir, seed, devices, model, data, stages, logging, checkpoint, onNonFinite,
                parallel, nccl, performance, stepTimeout, baseDir);
        new CrossChecks(problems).check(config);
        return config;
    }

    private DeviceSelection readDevices(JsonObjectReader r) {
        JsonNode v = r.raw("devices");
        String at = r.pathOf("devices");
        if (v == null) {
            return DeviceSelection.parse(r.schema().defaultOf("devices").asText());
        }
        if (v.isTextual()) {
            DeviceSelection parsed = DeviceSelection.parse(v.asText());
            if (parsed == null || parsed.kind() == DeviceSelection.Kind.GPU_LIST) {
                problems.error(at, "must be \"cpu\", \"cpu:N\" (N CPU workers, 1 to 64), \"all\" or a list of GPU indices such as [0, 1], not \""
                        + v.asText() + "\"");
                return DeviceSelection.CPU;
            }
            return parsed;
        }
        List<Integer> indices = r.intList("devices");
        if (indices == null) {
            return DeviceSelection.CPU;
        }
        if (new HashSet<>(indices).size() != indices.size()) {
            problems.error(at, "lists a GPU more than once: " + indices);
        }
        return DeviceSelection.gpus(indices);
    }

    private ModelConfig readModel(JsonObjectReader r) {
        String type = r.requiredChoice("type");
        r.variant(type);
        String act = r.choice("activation");
        ModelConfig.Activation activation = act == null ? null : ModelConfig.Activation.of(act);
        ModelConfig model = null;
        if ("mlp".equals(type)) {
            List<Integer> hidden = r.intList("hidden");
            Double dropout = r.number("dropout");
            model = hidden == null ? null : new ModelConfig.Mlp(hidden, activation, dropout);
        } else if ("lenet".equals(type)) {
            List<Integer> channels = r.intList("channels");
            Integer kernel = r.integer("kernelSize");
            if (kernel % 2 == 0) {
                problems.error(r.pathOf("kernelSize"), "must be odd (the convolutions keep the image size)");
            }
            Integer dense = r.integer("dense");
            Double dropout = r.number("dropout");
            boolean batchNorm = r.bool("batchNorm");
            model = channels == null ? null : new ModelConfig.LeNet(channels, kernel, dense, activation, dropout, batchNorm);
        } else if ("resnet".equals(type)) {
            model = new ModelConfig.ResNet(r.integer("blocks"), r.integer("channels"), activation);
        } else {
            r.allow("hidden", "dropout", "channels", "kernelSize", "dense", "batchNorm", "blocks");
        }
        r.finish();
        return model;
    }

    private LoggingConfig readLogging(JsonObjectReader r) {
        LoggingConfig l = new LoggingConfig(r.bool("jsonl"), r.bool("csv"), r.bool("tensorboard"), r.integer("everySteps"));
        r.finish();
        return l;
    }

    private CheckpointPolicy readCheckpoint(JsonObjectReader r) {
        String monitor = r.choice("monitor");
        int everyEpochs = r.integer("everyEpochs");
        double everyMinutes = r.number("everyMinutes");
        int keepLast = r.integer("keepLast");
        boolean keepBest = r.bool("keepBestPerStage");
        // the better direction follows the metric unless it is given
        String mode = r.choice("mode", "val/accuracy".equals(monitor) ? "max" : "min");
        CheckpointPolicy c = new CheckpointPolicy(everyEpochs, everyMinutes, keepLast, keepBest, monitor, mode, r.choice("onWriteError"));
        r.finish();
        return c;
    }

    private ParallelConfig readParallel(JsonObjectReader r) {
        ParallelConfig p = new ParallelConfig(r.choice("mode"), r.integer("averagingFrequency"), r.integer("prefetch"),
                r.choice("lrScaling"), r.bool("fallback"), r.number("baselineSamplesPerSecond"));
        r.finish();
        return p;
    }

    private PerformanceConfig readPerformance(JsonObjectReader r) {
        PerformanceConfig p = new PerformanceConfig(r.bool("onednn"));
        r.finish();
        return p;
    }
}
