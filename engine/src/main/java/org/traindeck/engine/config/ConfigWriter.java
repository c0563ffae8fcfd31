package org.traindeck.engine.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.nio.file.Path;
import java.util.List;

/**
 * Writes a {@link RunConfig} back as TrainDeck JSON, every default spelled out, so that what ran can be read and
 * re-run exactly. {@link ConfigParser} reads the output back to an equal config.
 */
public final class ConfigWriter {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final boolean absolutePaths;
    private final Path baseDir;

    private ConfigWriter(RunConfig config, boolean absolutePaths) {
        this.absolutePaths = absolutePaths;
        this.baseDir = config == null ? null : config.baseDir();
    }

    /** Paths as written in the config (relative to its folder). */
    public static String toJson(RunConfig config) {
        return write(new ConfigWriter(config, false).run(config));
    }

    /** Paths made absolute, for a copy stored away from the original config's folder. */
    public static String toJsonWithAbsolutePaths(RunConfig config) {
        return write(new ConfigWriter(config, true).run(config));
    }

    private static String write(ObjectNode node) {
        DefaultPrettyPrinter printer = new DefaultPrettyPrinter().withArrayIndenter(DefaultIndenter.SYSTEM_LINEFEED_INSTANCE);
        try {
            return MAPPER.writer(printer).writeValueAsString(node) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private String path(String p) {
        return absolutePaths ? baseDir.resolve(p).normalize().toString() : p;
    }

    private ObjectNode run(RunConfig c) {
        ObjectNode o = NODES.objectNode();
        o.put("name", c.name());
        o.put("outputDir", path(c.outputDir()));
        o.put("seed", c.seed());
        switch (c.devices().kind()) {
            case CPU -> o.put("devices", c.devices().toString());
            case ALL_GPUS -> o.put("devices", "all");
            case GPU_LIST -> o.set("devices", ints(c.devices().gpuIndices()));
        }
        o.set("model", model(c.model()));
        o.set("data", data(c.data()));
        ArrayNode stages = o.putArray("stages");
        c.stages().forEach(s -> stages.add(stage(s)));
        LoggingConfig l = c.logging();
        ObjectNode logging = o.putObject("logging");
        logging.put("jsonl", l.jsonl());
        logging.put("csv", l.csv());
        logging.put("tensorboard", l.tensorboard());
        logging.put("everySteps", l.everySteps());
        CheckpointPolicy p = c.checkpoint();
        ObjectNode checkpoint = o.putObject("checkpoint");
        checkpoint.put("everyEpochs", p.everyEpochs());
        checkpoint.put("everyMinutes", p.everyMinutes());
        checkpoint.put("keepLast", p.keepLast());
        checkpoint.put("keepBestPerStage", p.keepBestPerStage());
        checkpoint.put("monitor", p.monitor());
        checkpoint.put("mode", p.mode());
        checkpoint.put("onWriteError", p.onWriteError());
        o.put("onNonFinite", c.onNonFinite());
        ParallelConfig par = c.parallel();
        ObjectNode parallel = o.putObject("parallel");
        parallel.put("mode", par.mode());
        parallel.put("averagingFrequency", par.averagingFrequency());
        parallel.put("prefetch", par.prefetch());
        parallel.put("lrScaling", par.lrScaling());
        parallel.put("fallback", par.fallback());
        parallel.put("baselineSamplesPerSecond", par.baselineSamplesPerSecond());
        if (!c.nccl().all().isEmpty()) {
            ObjectNode nccl = o.putObject("nccl");
            c.nccl().toggles().forEach(nccl::put);
            if (!c.nccl().custom().isEmpty()) {
                ObjectNode custom = nccl.putObject("custom");
                c.nccl().custom().forEach(custom::put);
            }
        }
        o.putObject("performance").put("onednn", c.performance().onednn());
        o.put("stepTimeoutSeconds", c.stepTimeoutSeconds());
        return o;
    }

    private static ArrayNode ints(List<Integer> values) {
        ArrayNode a = NODES.arrayNode();
        values.forEach(a::add);
        return a;
    }

    /** The model section alone, as compact JSON: what a checkpoint's parameters belong to. */
    public static String modelJson(ModelConfig m) {
        try {
            return MAPPER.writeValueAsString(new ConfigWriter(null, false).model(m));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private ObjectNode model(ModelConfig m) {
        ObjectNode o = NODES.objectNode();
        o.put("type", m.type());
        o.put("activation", m.activation().json);
        if (m instanceof ModelConfig.Mlp mlp) {
            o.set("hidden", ints(mlp.hidden()));
            o.put("dropout", mlp.dropout());
        } else if (m instanceof ModelConfig.LeNet lenet) {
            o.set("channels", ints(lenet.channels()));
            o.put("kernelSize", lenet.kernelSize());
            o.put("dense", lenet.dense());
            o.put("dropout", lenet.dropout());
            o.put("batchNorm", lenet.batchNorm());
        } else if (m instanceof ModelConfig.ResNet resnet) {
            o.put("blocks", resnet.blocks());
            o.put("channels", resnet.channels());
        }
        return o;
    }

    private ObjectNode data(DataConfig d) {
        ObjectNode o = NODES.objectNode();
        o.set("train", source(d.train()));
        if (d.validation() != null) {
            o.set("validation", source(d.validation()));
        }
        if (d.validationSplit() > 0) {
            o.put("validationSplit", d.validationSplit());
        }
        o.put("shuffle", d.shuffle());
        return o;
    }

    private ObjectNode source(SourceConfig s) {
        ObjectNode o = NODES.objectNode();
        o.put("type", s.type());
        if (s instanceof SourceConfig.Idx idx) {
            o.put("path", path(idx.path()));
            o.put("split", idx.split());
        } else if (s instanceof SourceConfig.Csv csv) {
            o.put("path", path(csv.path()));
            o.put("labelColumn", csv.labelColumn());
            o.put("header", csv.header());
            o.put("delimiter", csv.delimiter());
            o.put("task", csv.task().json);
            if (csv.numClasses() != null) {
                o.put("numClasses", csv.numClasses());
            }
            if (csv.imageShape() != null) {
                o.set("imageShape", ints(csv.imageShape()));
            }
            o.put("normalize", csv.normalize().json);
        } else if (s instanceof SourceConfig.ImageFolder f) {
            o.put("path", path(f.path()));
            o.put("width", f.width());
            o.put("height", f.height());
            o.put("channels", f.channels());
        } else if (s instanceof SourceConfig.Synthetic syn) {
            o.put("task", syn.task().json);
            o.put("samples", syn.samples());
            if (syn.imageShape() != null) {
                o.set("imageShape", ints(syn.imageShape()));
            } else {
                o.put("features", syn.features());
            }
            if (syn.task() == Task.CLASSIFICATION) {
                o.put("numClasses", syn.numClasses());
            }
            o.put("noise", syn.noise());
        }
        if (s.limit() > 0) {
            o.put("limit", s.limit());
        }
        return o;
    }

    private ObjectNode stage(StageConfig s) {
        ObjectNode o = NODES.objectNode();
        o.put("name", s.name());
        o.put("epochs", s.epochs());
        o.put("batchSize", s.batchSize());
        o.set("optimizer", optimizer(s.optimizer()));
        o.set("schedule", schedule(s.schedule()));
        o.put("gradientClipping", s.clipNorm());
        o.put("accumulationSteps", s.accumulationSteps());
        o.put("precision", s.precision().json);
        if (s.augmentation() != null) {
            AugmentationConfig a = s.augmentation();
            ObjectNode aug = o.putObject("augmentation");
            aug.put("rotate90", a.rotate90());
            aug.put("flipHorizontal", a.flipHorizontal());
            aug.put("flipVertical", a.flipVertical());
            aug.put("brightness", a.brightness());
            aug.put("contrast", a.contrast());
        }
        o.put("validationInterval", s.validationInterval());
        if (s.data() != null) {
            o.set("data", data(s.data()));
        }
        return o;
    }

    private static ObjectNode optimizer(OptimizerConfig c) {
        ObjectNode o = NODES.objectNode();
        o.put("type", c.type());
        o.put("learningRate", c.learningRate());
        for (String field : OptimizerConfig.FIELDS.get(c.type()).stream().sorted().toList()) {
            switch (field) {
                case "momentum" -> o.put("momentum", c.momentum());
                case "beta1" -> o.put("beta1", c.beta1());
                case "beta2" -> o.put("beta2", c.beta2());
                default -> o.put("epsilon", c.epsilon());
            }
        }
        o.put("weightDecay", c.weightDecay());
        return o;
    }

    private static ObjectNode schedule(ScheduleConfig s) {
        ObjectNode o = NODES.objectNode();
        o.put("type", s.type());
        if (s instanceof ScheduleConfig.Step step) {
            o.put("everyEpochs", step.everyEpochs());
            o.put("gamma", step.gamma());
        } else if (s instanceof ScheduleConfig.WarmupCosine wc) {
            if (wc.warmupEpochs() != null) {
                o.put("warmupEpochs", wc.warmupEpochs());
            } else {
                o.put("warmupSteps", wc.warmupSteps());
            }
            o.put("minLearningRate", wc.minLearningRate());
        }
        return o;
    }
}
