package org.traindeck.engine.config.read;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import org.traindeck.engine.config.ConfigPathSerializer;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.RunConfig;

/**
 * Writes a {@link RunConfig} back as TrainDeck JSON through Jackson databind, every default spelled out, so that what
 * ran can be read and re-run exactly. The config records carry the annotations that say how; {@link ConfigParser}
 * reads the output back to an equal config.
 */
public final class ConfigWriter {

    private static final ObjectMapper MAPPER = ConfigMapper.MAPPER;
    private static final ObjectWriter PRETTY =
            MAPPER.writer(new DefaultPrettyPrinter().withArrayIndenter(DefaultIndenter.SYSTEM_LINEFEED_INSTANCE));

    private ConfigWriter() {}

    /** Paths as written in the config (relative to its folder). */
    public static String toJson(RunConfig config) {
        return write(PRETTY, config);
    }

    /** Paths made absolute, for a copy stored away from the original config's folder. */
    public static String toJsonWithAbsolutePaths(RunConfig config) {
        return write(PRETTY.withAttribute(ConfigPathSerializer.BASE_DIR, config.baseDir()), config);
    }

    /**
     * The model section alone, as compact JSON: what a checkpoint's parameters belong to. Checkpoints store it, so
     * its bytes must not change between versions (ConfigWriterTest holds them).
     */
    public static String modelJson(ModelConfig m) {
        try {
            return MAPPER.writerFor(ModelConfig.class).writeValueAsString(m);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A model section as the config would have it, indented, for a user to copy. */
    public static String modelJsonPretty(ModelConfig m) {
        try {
            return PRETTY.forType(ModelConfig.class).writeValueAsString(m);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String write(ObjectWriter writer, RunConfig config) {
        try {
            return writer.writeValueAsString(config) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
