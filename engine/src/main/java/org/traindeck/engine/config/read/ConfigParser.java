package org.traindeck.engine.config.read;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.traindeck.engine.config.CheckpointPolicy;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.JsonLocations;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.ValidationResult;

/**
 * Reads TrainDeck's JSON run config strictly and reports every problem in one pass, each with its JSON path and
 * position. Relative paths in the config are resolved against the config file's folder. Every bound, choice and
 * default comes from the bundled schema; the section readers add what a schema cannot say, and {@link CrossChecks}
 * what needs the whole config.
 */
public final class ConfigParser {

    private static final List<String> HIGHER_IS_BETTER =
            List.of("val/accuracy", "val/pixel_accuracy", "val/mean_iou", "val/psnr");

    static final Pattern RUN_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

    private final Problems problems;
    private final Path baseDir;
    private final boolean checkFiles;

    private ConfigParser(Problems problems, Path baseDir, boolean checkFiles) {
        this.problems = problems;
        this.baseDir = baseDir.toAbsolutePath().normalize();
        this.checkFiles = checkFiles;
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
            text = StandardCharsets.UTF_8
                    .newDecoder()
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
            if (text.startsWith("\uFEFF")) {
                text = text.substring(1); // the byte-order mark Windows editors write
            }
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
        return String.format(
                Locale.ROOT,
                "%s is %.1f MB, but a run config is at most %d kB: is it the right file?",
                what,
                size / 1e6,
                MAX_CONFIG_BYTES / 1024);
    }

    /**
     * Checks a config again after a change made in code (other devices from the command line or a queue's slot): its
     * cross-field rules may no longer hold, as accumulation does not with parameter averaging on several devices.
     */
    public static ValidationResult revalidate(RunConfig config) {
        return revalidate(config, new JsonLocations());
    }

    /**
     * As {@link #revalidate(RunConfig)}, on the record itself (never written out and read again): the values such a
     * change sets (devices come parsed by {@link DeviceSelection#parse}; a cluster's executors are held to the schema's
     * bounds here), then every cross-field rule.
     *
     * @param locations the original text's positions, so that a problem of what did not change keeps its line
     */
    public static ValidationResult revalidate(RunConfig config, JsonLocations locations) {
        Problems problems = new Problems(locations);
        JsonNode executors = ConfigSchema.property("parallel.executors");
        long min = executors.path("minimum").asLong(1);
        long max = executors.path("maximum").asLong(Integer.MAX_VALUE);
        int n = config.parallel().executors();
        if (n < min || n > max) {
            problems.error("parallel.executors", "must be between " + min + " and " + max);
        } else {
            new CrossChecks(problems).check(config);
        }
        return new ValidationResult(problems.hasErrors() ? null : config, problems.all(), locations);
    }

    /** Validates config text; relative paths resolve against {@code baseDir}. */
    public static ValidationResult parse(String text, Path baseDir) {
        return parse(text, baseDir, ConfigSchema.root());
    }

    /** As {@link #parse(String, Path)}, against an edited copy of the schema's JSON (one with a plug-in's layer type). */
    public static ValidationResult parse(String text, Path baseDir, JsonNode schemaJson) {
        return parse(text, baseDir, SchemaNode.of(schemaJson));
    }

    /** As {@link #parse(String, Path)}, with the bounds and choices of the given schema (a test's edited copy). */
    static ValidationResult parse(String text, Path baseDir, SchemaNode schema) {
        return parse(text, baseDir, schema, true);
    }

    private static ValidationResult parse(String text, Path baseDir, SchemaNode schema, boolean checkFiles) {
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
        RunConfig config = new ConfigParser(problems, baseDir, checkFiles)
                .readRun(new JsonObjectReader(problems, "", root, schema));
        return new ValidationResult(problems.hasErrors() ? null : config, problems.all(), parsed.locations());
    }

    /**
     * A config as a run folder or a checkpoint stored it, checked like any other except that its data files need not
     * be there: a trained model is used (evaluated on other data, predicted with, exported) where its training data
     * may not be.
     */
    public static ValidationResult parseStored(String text, Path baseDir) {
        return parse(text, baseDir, ConfigSchema.root(), false);
    }

    private RunConfig readRun(JsonObjectReader r) {
        SourceReader sources = new SourceReader(problems, baseDir, checkFiles);
        Map<String, RecordReader.FieldReader> own = new HashMap<>();
        own.put("name", soFar -> {
            String name = r.requiredString("name");
            if (name != null && !RUN_NAME.matcher(name).matches()) {
                problems.error(
                        r.pathOf("name"),
                        "must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit");
            }
            return name;
        });
        own.put("outputDir", soFar -> {
            String outputDir = r.string("outputDir");
            if (outputDir != null && outputDir.isBlank()) {
                problems.error(r.pathOf("outputDir"), "must not be empty");
            }
            return outputDir;
        });
        own.put("devices", soFar -> readDevices(r));
        own.put("model", soFar -> {
            JsonObjectReader model = r.requiredObject("model");
            return model == null ? null : readModel(model, DataInputNames.of(r.raw("data"), r.raw("stages")));
        });
        own.put("data", soFar -> {
            JsonObjectReader data = r.requiredObject("data");
            return data == null ? null : sources.readData(data);
        });
        own.put(
                "stages",
                soFar -> new StageReader(
                                problems, sources, m -> readModel(m, DataInputNames.of(r.raw("data"), r.raw("stages"))))
                        .readStages(r));
        own.put("checkpoint", soFar -> readCheckpoint(r.section("checkpoint")));
        own.put("nccl", soFar -> new NcclReader(problems).readNccl(r.section("nccl")));
        own.put("baseDir", soFar -> baseDir);
        RunConfig config = RecordReader.read(r, RunConfig.class, own);
        if (config == null || problems.hasErrors()) {
            return null;
        }
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
                problems.error(
                        at,
                        "must be \"cpu\", \"cpu:N\" (N CPU workers, 1 to 64), \"all\" or a list of GPU indices such as [0, 1], not \""
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

    private ModelConfig readModel(JsonObjectReader r, List<String> dataInputs) {
        Class<? extends ModelConfig> variant = RecordReader.variant(r, ModelConfig.class);
        if (variant == null) {
            return null;
        }
        RecordReader.FieldReader init = soFar -> new InitReader(problems).read(r);
        ModelConfig model = variant == ModelConfig.Graph.class
                ? RecordReader.read(
                        r,
                        variant,
                        Map.of("layers", soFar -> new GraphReader(problems, dataInputs).readLayers(r), "init", init))
                : RecordReader.read(r, variant, Map.of("init", init));
        if (model instanceof ModelConfig.Vit vit) {
            checkHeads(r, vit.width(), vit.heads());
        } else if (model instanceof ModelConfig.Gpt gpt) {
            checkHeads(r, gpt.width(), gpt.heads());
        }
        if (model instanceof ModelConfig.LeNet lenet && lenet.kernelSize() % 2 == 0) {
            problems.error(r.pathOf("kernelSize"), "must be odd (the convolutions keep the image size)");
        }
        return model;
    }

    private void checkHeads(JsonObjectReader r, int width, int heads) {
        if (width % heads != 0) {
            problems.error(
                    r.pathOf("heads"),
                    heads + " heads do not divide the width " + width + ": each head gets width / heads features"
                            + " (for example " + largestDivisorAtMost(width, heads) + " heads)");
        }
    }

    private static int largestDivisorAtMost(int n, int limit) {
        for (int d = Math.min(n, limit); d > 1; d--) {
            if (n % d == 0) {
                return d;
            }
        }
        return 1;
    }

    private CheckpointPolicy readCheckpoint(JsonObjectReader r) {
        // the better direction follows the monitored metric unless it is given
        return RecordReader.read(
                r,
                CheckpointPolicy.class,
                Map.of(
                        "mode",
                        soFar -> r.choice(
                                "mode",
                                soFar.get("monitor") instanceof String m
                                                && HIGHER_IS_BETTER.contains(m.replace("val_ema/", "val/"))
                                        ? "max"
                                        : "min")));
    }
}
