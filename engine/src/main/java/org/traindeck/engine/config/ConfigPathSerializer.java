package org.traindeck.engine.config;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Writes a path of the config as written, or resolved against the config's folder when the writer carries one: a
 * copy stored in a run folder must still find the data.
 */
public final class ConfigPathSerializer extends StdSerializer<String> {

    public static final String BASE_DIR = "traindeck.baseDir";

    ConfigPathSerializer() {
        super(String.class);
    }

    @Override
    public void serialize(String path, JsonGenerator out, SerializerProvider provider) throws IOException {
        Object baseDir = provider.getAttribute(BASE_DIR);
        out.writeString(
                baseDir instanceof Path dir ? dir.resolve(path).normalize().toString() : path);
    }
}
