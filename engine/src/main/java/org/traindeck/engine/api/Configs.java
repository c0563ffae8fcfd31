package org.traindeck.engine.api;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;
import org.traindeck.engine.config.JsonLocations;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.PathEncoding;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.ValidationResult;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.config.read.ConfigSchema;
import org.traindeck.engine.config.read.ConfigWriter;
import org.traindeck.engine.model.ModelCompiler;

/**
 * The run-config format as front ends use it: reading and checking a config (every problem, located), checking one
 * changed in code again, and what the schema says of each field for forms and tooltips. Nothing here loads ND4J.
 */
public final class Configs {

    private Configs() {}

    /** Checks a config's text; relative paths in it are taken from {@code baseDir}. Every problem in one pass. */
    public static ValidationResult parse(String json, Path baseDir) {
        return ConfigParser.parse(json, baseDir);
    }

    /** Reads and checks a config file. */
    public static ValidationResult load(Path file) {
        return ConfigParser.load(file);
    }

    /** The largest config file the engine reads; anything bigger is not a config. */
    public static long maxConfigBytes() {
        return ConfigParser.MAX_CONFIG_BYTES;
    }

    /** The allowed values of an enumerated config field ({@code "model.type"}, {@code "stages[0].precision"}). */
    public static List<String> choices(String path) {
        return ConfigSchema.choices(path);
    }

    /** A config field's documented default as text ("0.001"), or null when it has none. */
    public static String defaultText(String path) {
        return ConfigSchema.defaultText(path);
    }

    /** What a config field is for, its range and its default, for a tooltip; null when the schema says nothing. */
    public static String fieldHint(String path) {
        return ConfigSchema.hint(path);
    }

    /** The layer graph a vit or gpt shorthand stands for, as config JSON to copy; null for a model that has none. */
    public static String expandedModel(ModelConfig model) {
        ModelConfig.Graph graph = ModelCompiler.expanded(model);
        return graph == null ? null : ConfigWriter.modelJsonPretty(graph);
    }

    /** Checks a config changed in code (other devices, a cluster) again; its problems carry no line. */
    public static ValidationResult revalidate(RunConfig config) {
        return ConfigParser.revalidate(config);
    }

    /**
     * As {@link #revalidate(RunConfig)}, for a config changed after it was read from its text: its problems keep the
     * text's lines ({@code locations}: the read's {@link ValidationResult#locations()}).
     */
    public static ValidationResult revalidate(RunConfig config, JsonLocations locations) {
        return ConfigParser.revalidate(config, locations);
    }

    /** What to tell the user about a path this system's locale cannot name as a file. */
    public static String pathAdvice(InvalidPathException e) {
        return PathEncoding.advice(e);
    }
}
