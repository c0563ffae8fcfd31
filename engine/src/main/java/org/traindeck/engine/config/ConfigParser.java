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
 * position. Relative paths in the config are resolved against the config file's folder.
 */
public final class ConfigParser {

    private static final Pattern RUN_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    static final String FASHION_MNIST_HINT =
            "Fashion-MNIST ships in Debian's package dataset-fashion-mnist: install it with `sudo apt-get install dataset-fashion-mnist`";

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
        String outputDir = r.string("outputDir", "runs");
        if (outputDir != null && outputDir.isBlank()) {
            problems.error(r.pathOf("outputDir"), "must not be empty");
        }
        Long seed = r.longValue("seed", 42L);
        DeviceSelection devices = readDevices(r);
        JsonObjectReader modelReader = r.requiredObject("model");
        ModelConfig model = modelReader == null ? null : readModel(modelReader);
        JsonObjectReader dataReader = r.requiredObject("data");
        DataConfig data = dataReader == null ? null : readData(dataReader);
        List<StageConfig> stages = readStages(r);
        JsonObjectReader loggingReader = r.object("logging");
        LoggingConfig logging = loggingReader == null ? LoggingConfig.DEFAULT : readLogging(loggingReader);
        JsonObjectReader checkpointReader = r.object("checkpoint");
        CheckpointPolicy checkpoint = checkpointReader == null ? CheckpointPolicy.DEFAULT : readCheckpoint(checkpointReader);
        String onNonFinite = r.choice("onNonFinite", "stop");
        JsonObjectReader parallelReader = r.object("parallel");
        ParallelConfig parallel = parallelReader == null ? ParallelConfig.DEFAULT : readParallel(parallelReader);
        JsonObjectReader ncclReader = r.object("nccl");
        NcclConfig nccl = ncclReader == null ? NcclConfig.NONE : readNccl(ncclReader);
        JsonObjectReader performanceReader = r.object("performance");
        PerformanceConfig performance = performanceReader == null ? PerformanceConfig.DEFAULT : readPerformance(performanceReader);
        Integer stepTimeout = r.integer("stepTimeoutSeconds", 0);
        r.finish();

        if (problems.hasErrors()) {
            return null;
        }
        RunConfig config = new RunConfig(name, outputDir, seed, devices, model, data, stages, logging, checkpoint, onNonFinite,
                parallel, nccl, performance, stepTimeout, baseDir);
        crossCheck(config);
        return config;
    }

    private DeviceSelection readDevices(JsonObjectReader r) {
        JsonNode v = r.raw("devices");
        String at = r.pathOf("devices");
        if (v == null) {
            return DeviceSelection.CPU;
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
        String act = r.choice("activation", "relu");
        ModelConfig.Activation activation = act == null ? ModelConfig.Activation.RELU : ModelConfig.Activation.of(act);
        ModelConfig model = null;
        if ("mlp".equals(type)) {
            List<Integer> hidden = r.intList("hidden");
            Double dropout = r.number("dropout", 0.0);
            model = new ModelConfig.Mlp(hidden == null ? List.of(256, 128) : hidden, activation, dropout);
        } else if ("lenet".equals(type)) {
            List<Integer> channels = r.intList("channels");
            Integer kernel = r.integer("kernelSize", 5);
            if (kernel % 2 == 0) {
                problems.error(r.pathOf("kernelSize"), "must be odd (the convolutions keep the image size)");
            }
            Integer dense = r.integer("dense", 500);
            Double dropout = r.number("dropout", 0.0);
            boolean batchNorm = r.bool("batchNorm", false);
            model = new ModelConfig.LeNet(channels == null ? List.of(20, 50) : channels, kernel, dense, activation,
                    dropout, batchNorm);
        } else if ("resnet".equals(type)) {
            Integer blocks = r.integer("blocks", 2);
            Integer channels = r.integer("channels", 16);
            model = new ModelConfig.ResNet(blocks, channels, activation);
        } else {
            r.allow("hidden", "dropout", "channels", "kernelSize", "dense", "batchNorm", "blocks");
        }
        r.finish();
        return model;
    }

    private DataConfig readData(JsonObjectReader r) {
        JsonObjectReader trainReader = r.requiredObject("train");
        SourceConfig train = trainReader == null ? null : readSource(trainReader);
        JsonObjectReader validationReader = r.object("validation");
        SourceConfig validation = validationReader == null ? null : readSource(validationReader);
        Double split = r.number("validationSplit", null);
        if (validation != null && split != null && split > 0) {
            problems.error(r.pathOf("validationSplit"), "give either \"validation\" (a source) or \"validationSplit\", not both");
        }
        boolean shuffle = r.bool("shuffle", true);
        r.finish();
        return new DataConfig(train, validation, split == null ? 0 : split, shuffle);
    }

    private SourceConfig readSource(JsonObjectReader r) {
        String type = r.requiredChoice("type");
        r.variant(type);
        Integer limit = r.integer("limit", 0);
        SourceConfig source = null;
        if ("idx".equals(type)) {
            String path = r.requiredString("path");
            String split = r.choice("split", "train");
            if (path != null && split != null) {
                checkIdxFiles(r.pathOf("path"), path, split);
            }
            source = new SourceConfig.Idx(path, split, limit);
        } else if ("csv".equals(type)) {
            String path = r.requiredString("path");
            if (path != null) {
                checkExists(r.pathOf("path"), path, false);
            }
            Integer labelColumn = r.integer("labelColumn", -1);
            boolean header = r.bool("header", false);
            String delimiter = r.string("delimiter", ",");
            if (delimiter != null && delimiter.length() != 1) {
                problems.error(r.pathOf("delimiter"), "must be a single character, such as \",\" or \";\"");
            }
            String task = r.choice("task", "classification");
            Integer numClasses = r.integer("numClasses", null);
            if ("regression".equals(task) && numClasses != null) {
                problems.error(r.pathOf("numClasses"), "applies to classification only");
            }
            List<Integer> imageShape = readImageShape(r);
            String normalize = r.choice("normalize", "none");
            source = new SourceConfig.Csv(path, labelColumn, header, delimiter, Task.of(task == null ? "classification" : task),
                    numClasses, imageShape, SourceConfig.Normalize.of(normalize == null ? "none" : normalize), limit);
        } else if ("images".equals(type)) {
            String path = r.requiredString("path");
            if (path != null) {
                checkExists(r.pathOf("path"), path, true);
            }
            Integer width = r.requiredInt("width");
            Integer height = r.requiredInt("height");
            Integer channels = r.integer("channels", 1);
            if (channels != null && channels == 2) {
                problems.error(r.pathOf("channels"), "must be 1 (grey) or 3 (RGB)");
            }
            source = new SourceConfig.ImageFolder(path, width == null ? 1 : width, height == null ? 1 : height,
                    channels, limit);
        } else if ("synthetic".equals(type)) {
            String task = r.choice("task", "classification");
            Integer samples = r.integer("samples", 2000);
            Integer features = r.integer("features", null);
            List<Integer> imageShape = readImageShape(r);
            if (features != null && imageShape != null) {
                problems.error(r.pathOf("imageShape"), "give either \"features\" or \"imageShape\", not both");
            }
            if (features == null && imageShape == null) {
                features = 20;
            }
            boolean regression = "regression".equals(task);
            Integer numClasses = r.integer("numClasses", regression ? null : 4);
            if (regression && r.has("numClasses")) {
                problems.error(r.pathOf("numClasses"), "applies to classification only");
            }
            if (regression && imageShape != null) {
                problems.error(r.pathOf("imageShape"), "synthetic images are for classification; use \"features\" for regression");
            }
            if (imageShape != null && numClasses != null && numClasses > Math.max(imageShape.get(0), imageShape.get(1))) {
                problems.error(r.pathOf("numClasses"), "synthetic images mark the class by a bar position: at most "
                        + Math.max(imageShape.get(0), imageShape.get(1)) + " classes for this image size");
            }
            Double noise = r.number("noise", 0.5);
            source = new SourceConfig.Synthetic(Task.of(task == null ? "classification" : task), samples, features,
                    imageShape, numClasses == null ? 0 : numClasses, noise, limit);
        } else {
            r.allow("path", "split", "labelColumn", "header", "delimiter", "task", "numClasses", "imageShape",
                    "normalize", "width", "height", "channels", "samples", "features", "noise");
        }
        r.finish();
        return source;
    }

    private List<Integer> readImageShape(JsonObjectReader r) {
        List<Integer> shape = r.intList("imageShape", 1, 4096, 3);
        if (shape == null) {
            return null;
        }
        if (shape.size() != 3) {
            problems.error(r.pathOf("imageShape"), "must be [height, width, channels], for example [8, 8, 1]");
            return null;
        }
        if (shape.get(2) != 1 && shape.get(2) != 3) {
            problems.error(JsonLocations.element(r.pathOf("imageShape"), 2), "channels must be 1 or 3");
            return null;
        }
        return shape;
    }

    private void checkExists(String at, String path, boolean directory) {
        Path p = baseDir.resolve(path).normalize();
        if (directory ? !Files.isDirectory(p) : !Files.isRegularFile(p)) {
            String what = directory ? "folder" : "file";
            String hint = Files.exists(p) ? " (it exists but is not a " + what + ")" : "";
            problems.error(at, "no such " + what + ": " + p + hint);
        } else if (!Files.isReadable(p)) {
            problems.error(at, "cannot read " + p + " (permission denied)");
        }
    }

    private void checkIdxFiles(String at, String path, String split) {
        Path dir = baseDir.resolve(path).normalize();
        boolean fashion = dir.toString().contains("fashion-mnist");
        if (!Files.isDirectory(dir)) {
            problems.error(at, "no such folder: " + dir + (fashion ? ". " + FASHION_MNIST_HINT : ""));
            return;
        }
        for (String kind : List.of("images-idx3-ubyte", "labels-idx1-ubyte")) {
            String base = split + "-" + kind;
            if (!Files.isRegularFile(dir.resolve(base)) && !Files.isRegularFile(dir.resolve(base + ".gz"))) {
                problems.error(at, "the folder " + dir + " has no " + base + " or " + base + ".gz"
                        + (fashion ? ". " + FASHION_MNIST_HINT : ""));
            }
        }
    }

    private List<StageConfig> readStages(JsonObjectReader r) {
        JsonNode v = r.raw("stages");
        String at = r.pathOf("stages");
        if (v == null) {
            problems.error(at, "is required: a list of one or more stages");
            return List.of();
        }
        if (!v.isArray() || v.isEmpty()) {
            problems.error(at, "must be a list of one or more stages, not " + (v.isArray() ? "an empty list" : JsonObjectReader.describe(v)));
            return List.of();
        }
        List<StageConfig> stages = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < v.size(); i++) {
            String stagePath = JsonLocations.element(at, i);
            JsonNode node = v.get(i);
            if (!node.isObject()) {
                problems.error(stagePath, "must be an object {...}, not " + JsonObjectReader.describe(node));
                continue;
            }
            StageConfig stage = readStage(new JsonObjectReader(problems, stagePath, node, r.schema().property("stages").items()), i);
            if (stage != null) {
                if (!names.add(stage.name())) {
                    problems.error(JsonLocations.child(stagePath, "name"), "another stage is already named \"" + stage.name() + "\"");
                }
                stages.add(stage);
            }
        }
        return stages;
    }

    private StageConfig readStage(JsonObjectReader r, int index) {
        String name = r.string("name", "stage" + (index + 1));
        if (name != null && !RUN_NAME.matcher(name).matches()) {
            problems.error(r.pathOf("name"), "must be 1 to 64 letters, digits, '.', '_' or '-'");
        }
        Integer epochs = r.requiredInt("epochs");
        Integer batchSize = r.integer("batchSize", 32);
        JsonObjectReader optimizerReader = r.object("optimizer");
        OptimizerConfig optimizer = optimizerReader == null
                ? new OptimizerConfig("adam", 1e-3, OptimizerConfig.DEFAULT_MOMENTUM, OptimizerConfig.DEFAULT_BETA1,
                OptimizerConfig.DEFAULT_BETA2, OptimizerConfig.DEFAULT_EPSILON, 0)
                : readOptimizer(optimizerReader);
        JsonObjectReader scheduleReader = r.object("schedule");
        ScheduleConfig schedule = scheduleReader == null ? new ScheduleConfig.Constant() : readSchedule(scheduleReader);
        Double clipNorm = r.number("gradientClipping", 0.0);
        Integer accumulation = r.integer("accumulationSteps", 1);
        String precision = r.choice("precision", "float32");
        JsonObjectReader augmentationReader = r.object("augmentation");
        AugmentationConfig augmentation = augmentationReader == null ? null : readAugmentation(augmentationReader);
        Integer validationInterval = r.integer("validationInterval", 1);
        JsonObjectReader dataReader = r.object("data");
        DataConfig data = dataReader == null ? null : readData(dataReader);
        r.finish();
        if (epochs == null || optimizer == null || schedule == null || precision == null) {
            return null;
        }
        return new StageConfig(name, epochs, batchSize, optimizer, schedule, clipNorm, accumulation,
                StageConfig.Precision.of(precision), augmentation, validationInterval, data);
    }

    private OptimizerConfig readOptimizer(JsonObjectReader r) {
        String type = r.choice("type", "adam");
        Double lr = r.number("learningRate", 1e-3);
        Double wd = r.number("weightDecay", 0.0);
        Set<String> accepted = type == null ? Set.of() : OptimizerConfig.FIELDS.get(type);
        double momentum = OptimizerConfig.DEFAULT_MOMENTUM;
        double beta1 = OptimizerConfig.DEFAULT_BETA1;
        double beta2 = OptimizerConfig.DEFAULT_BETA2;
        double epsilon = OptimizerConfig.DEFAULT_EPSILON;
        for (String field : List.of("momentum", "beta1", "beta2", "epsilon")) {
            if (!r.has(field)) {
                continue;
            }
            if (type != null && !accepted.contains(field)) {
                problems.error(r.pathOf(field), "does not apply to the " + type + " optimizer"
                        + (accepted.isEmpty() ? "" : " (it takes: " + String.join(", ", accepted.stream().sorted().toList()) + ")"));
                continue;
            }
            switch (field) {
                case "momentum" -> momentum = r.number(field, momentum);
                case "beta1" -> beta1 = r.number(field, beta1);
                case "beta2" -> beta2 = r.number(field, beta2);
                default -> epsilon = r.number(field, epsilon);
            }
        }
        r.finish();
        return type == null ? null : new OptimizerConfig(type, lr, momentum, beta1, beta2, epsilon, wd);
    }

    private ScheduleConfig readSchedule(JsonObjectReader r) {
        String type = r.requiredChoice("type");
        r.variant(type);
        ScheduleConfig schedule = null;
        if ("constant".equals(type)) {
            schedule = new ScheduleConfig.Constant();
        } else if ("step".equals(type)) {
            Double every = r.requiredNumber("everyEpochs");
            Double gamma = r.number("gamma", 0.1);
            schedule = every == null ? null : new ScheduleConfig.Step(every, gamma);
        } else if ("warmupCosine".equals(type)) {
            Integer warmupSteps = r.integer("warmupSteps", null);
            Double warmupEpochs = r.number("warmupEpochs", null);
            if (warmupSteps != null && warmupEpochs != null) {
                problems.error(r.pathOf("warmupEpochs"), "give either \"warmupSteps\" or \"warmupEpochs\", not both");
            }
            if (warmupSteps == null && warmupEpochs == null) {
                warmupSteps = 0;
            }
            Double min = r.number("minLearningRate", 0.0);
            schedule = new ScheduleConfig.WarmupCosine(warmupEpochs == null ? warmupSteps : null, warmupEpochs, min);
        } else {
            r.allow("everyEpochs", "gamma", "warmupSteps", "warmupEpochs", "minLearningRate");
        }
        r.finish();
        return schedule;
    }

    private AugmentationConfig readAugmentation(JsonObjectReader r) {
        AugmentationConfig a = new AugmentationConfig(
                r.bool("rotate90", false),
                r.bool("flipHorizontal", false),
                r.bool("flipVertical", false),
                r.number("brightness", 0.0),
                r.number("contrast", 0.0));
        r.finish();
        return a;
    }

    private LoggingConfig readLogging(JsonObjectReader r) {
        LoggingConfig l = new LoggingConfig(
                r.bool("jsonl", true),
                r.bool("csv", true),
                r.bool("tensorboard", true),
                r.integer("everySteps", 1));
        r.finish();
        return l;
    }

    private ParallelConfig readParallel(JsonObjectReader r) {
        ParallelConfig d = ParallelConfig.DEFAULT;
        ParallelConfig p = new ParallelConfig(
                r.choice("mode", d.mode()),
                r.integer("averagingFrequency", d.averagingFrequency()),
                r.integer("prefetch", d.prefetch()),
                r.choice("lrScaling", d.lrScaling()),
                r.bool("fallback", d.fallback()),
                r.number("baselineSamplesPerSecond", 0.0));
        r.finish();
        return p;
    }

    private PerformanceConfig readPerformance(JsonObjectReader r) {
        PerformanceConfig p = new PerformanceConfig(r.bool("onednn", PerformanceConfig.DEFAULT.onednn()));
        r.finish();
        return p;
    }

    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");

    private NcclConfig readNccl(JsonObjectReader r) {
        Map<String, String> toggles = new LinkedHashMap<>();
        for (NcclConfig.Toggle t : NcclConfig.KNOWN) {
            JsonNode v = r.raw(t.name());
            if (v == null) {
                continue;
            }
            String at = r.pathOf(t.name());
            if (!v.isTextual() && !v.isIntegralNumber()) {
                problems.error(at, "must be a string or a whole number, not " + JsonObjectReader.describe(v));
                continue;
            }
            String value = v.asText().strip();
            String problem = ncclValueProblem(t.name(), value);
            if (problem != null) {
                problems.error(at, problem);
                continue;
            }
            toggles.put(t.name(), value);
        }
        Map<String, String> custom = new LinkedHashMap<>();
        JsonObjectReader customReader = r.object("custom");
        if (customReader != null) {
            JsonNode node = r.raw("custom");
            node.fieldNames().forEachRemaining(name -> {
                customReader.allow(name);
                JsonNode v = node.get(name);
                String at = customReader.pathOf(name);
                if (!ENV_NAME.matcher(name).matches()) {
                    problems.error(at, "is not a valid environment variable name (letters, digits and _, not starting with a digit)");
                } else if (NcclConfig.known(name) != null) {
                    problems.error(at, name + " is a known toggle: set it in \"nccl\" itself");
                } else if (!v.isTextual() && !v.isNumber() && !v.isBoolean()) {
                    problems.error(at, "must be a string, number or boolean, not " + JsonObjectReader.describe(v));
                } else {
                    custom.put(name, v.asText());
                }
            });
            customReader.finish();
        }
        r.finish();
        return new NcclConfig(toggles, custom);
    }

    static String ncclValueProblem(String name, String value) {
        switch (name) {
            case "NCCL_TIMEOUT":
                return value.matches("\\d{1,7}") && Integer.parseInt(value) >= 1 ? null : "must be a whole number of seconds ≥ 1";
            case "NCCL_BLOCKING_WAIT", "NCCL_IB_DISABLE", "NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE":
                return value.equals("0") || value.equals("1") ? null : "must be 0 or 1";
            case "NCCL_DEBUG":
                return List.of("VERSION", "WARN", "INFO", "TRACE").contains(value) ? null : "must be VERSION, WARN, INFO or TRACE";
            case "NCCL_NSOCKS_PERTHREAD":
                return value.matches("\\d{1,2}") && Integer.parseInt(value) >= 1 && Integer.parseInt(value) <= 64 ? null : "must be 1 to 64";
            case "NCCL_SOCKET_NTHREADS":
                return value.matches("\\d{1,2}") && Integer.parseInt(value) >= 1 && Integer.parseInt(value) <= 16 ? null : "must be 1 to 16";
            case "NCCL_SOCKET_IFNAME":
                return value.matches("[=^]?[A-Za-z0-9_.:-]+(,[A-Za-z0-9_.:-]+)*") ? null : "must be interface names separated by commas, such as eth0,lo";
            default:
                return null;
        }
    }

    private CheckpointPolicy readCheckpoint(JsonObjectReader r) {
        CheckpointPolicy d = CheckpointPolicy.DEFAULT;
        String monitor = r.choice("monitor", d.monitor());
        String defaultMode = "val/accuracy".equals(monitor) ? "max" : "min";
        CheckpointPolicy c = new CheckpointPolicy(
                r.integer("everyEpochs", d.everyEpochs()),
                r.number("everyMinutes", d.everyMinutes()),
                r.integer("keepLast", d.keepLast()),
                r.bool("keepBestPerStage", d.keepBestPerStage()),
                monitor,
                r.choice("mode", defaultMode),
                r.choice("onWriteError", d.onWriteError()));
        r.finish();
        return c;
    }

    /** Checks that need the whole config: data shape against the model, stages against each other. */
    private void crossCheck(RunConfig config) {
        ModelConfig model = config.model();
        Task firstTask = null;
        for (int i = 0; i < config.stages().size(); i++) {
            StageConfig stage = config.stages().get(i);
            String stagePath = "stages[" + i + "]";
            DataConfig data = config.dataFor(stage);
            String dataPath = stage.data() != null ? stagePath + ".data" : "data";
            Task task = taskOf(data.train());
            if (firstTask == null) {
                firstTask = task;
            } else if (task != firstTask) {
                problems.error(dataPath + ".train", "is " + task.json + " data, but stage 1 trains " + firstTask.json
                        + ": every stage of a run must train the same kind of output");
            }
            if (data.validation() != null && taskOf(data.validation()) != task) {
                problems.error(dataPath + ".validation", "is " + taskOf(data.validation()).json
                        + " data, but the training data is " + task.json);
            }
            if (!(model instanceof ModelConfig.Mlp)) {
                if (!data.train().isImage()) {
                    problems.error(dataPath + ".train", "the " + model.type()
                            + " model needs image data (idx, images, or csv/synthetic with \"imageShape\"); use \"mlp\" for flat features");
                } else if (model instanceof ModelConfig.LeNet lenet) {
                    int side = minSide(data.train());
                    int pools = lenet.channels().size();
                    if (side > 0 && side >> pools < 1) {
                        problems.error("model.channels", pools + " conv/pool blocks halve the image " + pools
                                + " times, but the images are only " + side + " pixels on their short side: use at most "
                                + (31 - Integer.numberOfLeadingZeros(side)) + " blocks");
                    }
                }
            }
            if (stage.augmentation() != null && stage.augmentation().isActive() && !data.train().isImage()) {
                problems.error(stagePath + ".augmentation", "applies to image data only, but this stage's training data is flat features");
            }
            if (stage.augmentation() != null && stage.augmentation().rotate90() && data.train().isImage()) {
                int[] hw = heightWidth(data.train());
                if (hw != null && hw[0] != hw[1]) {
                    problems.error(stagePath + ".augmentation.rotate90", "needs square images, but they are " + hw[0] + "×" + hw[1]);
                }
            }
            boolean averaging = config.devices().maybeSeveral() && !config.parallel().synchronous();
            if (averaging && stage.accumulationSteps() > 1) {
                problems.error(stagePath + ".accumulationSteps", "is not supported with parallel.mode \"" + config.parallel().mode()
                        + "\": ParallelWrapper fits each batch itself. Use \"mode\": \"sync\" (the default), a larger batchSize "
                        + "per device, or one device");
            }
            if (averaging && stage.clipNorm() > 0) {
                problems.warning(stagePath + ".gradientClipping", "with parallel.mode \"" + config.parallel().mode()
                        + "\" DL4J clips each layer's gradient norm, not the global norm (\"sync\" clips the global norm)");
            }
            if (stage.precision() == StageConfig.Precision.FLOAT16) {
                OptimizerConfig opt = stage.optimizer();
                if (opt.usesEpsilon() && opt.epsilon() < 1e-4) {
                    problems.error(stagePath + ".optimizer.epsilon", "float16 training is pure fp16 in DL4J (no loss scaling): "
                            + "an epsilon of " + opt.epsilon() + " underflows and the run diverges. Set \"epsilon\": 1e-4 or larger, "
                            + "or use float32");
                }
                problems.warning(stagePath + ".precision", "float16 on the CPU backend is emulated and usually slower than float32");
            }
        }
    }

    private static Task taskOf(SourceConfig source) {
        if (source instanceof SourceConfig.Csv csv) {
            return csv.task();
        }
        if (source instanceof SourceConfig.Synthetic s) {
            return s.task();
        }
        return Task.CLASSIFICATION;
    }

    /** Height and width when the config alone says them (IDX files say theirs only when read). */
    private static int[] heightWidth(SourceConfig source) {
        if (source instanceof SourceConfig.ImageFolder f) {
            return new int[] {f.height(), f.width()};
        }
        if (source instanceof SourceConfig.Csv c && c.imageShape() != null) {
            return new int[] {c.imageShape().get(0), c.imageShape().get(1)};
        }
        if (source instanceof SourceConfig.Synthetic s && s.imageShape() != null) {
            return new int[] {s.imageShape().get(0), s.imageShape().get(1)};
        }
        return null;
    }

    private static int minSide(SourceConfig source) {
        int[] hw = heightWidth(source);
        return hw == null ? 0 : Math.min(hw[0], hw[1]);
    }
}
