package org.traindeck.engine.config;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A numpy source's inputs: one array ({@code "x.npy"}, {@code "data.npz:x"}), which a graph reads as {@code input},
 * or several named arrays in the order the config writes them ({@code {"image": "set.npz:img", "meta": …}}), which
 * graph nodes read by name. The first named array is the one a segmentation mask or a reconstruction refers to. A
 * diffusion source may name none (an unconditional model: its inputs are the noised sample and the timestep).
 */
@JsonSerialize(using = NumpyInputs.Writer.class)
public record NumpyInputs(Map<String, String> byName, boolean named) {

    /** The name a single unnamed input has in a graph. */
    public static final String SINGLE = "input";

    public NumpyInputs {
        if (byName.isEmpty() && !named) {
            throw new IllegalArgumentException("a numpy source of one input names its array");
        }
        byName = Collections.unmodifiableMap(new LinkedHashMap<>(byName));
    }

    public static NumpyInputs single(String spec) {
        return new NumpyInputs(Map.of(SINGLE, spec), false);
    }

    public List<String> names() {
        return List.copyOf(byName.keySet());
    }

    /** The first array's spec ("x.npy" or "data.npz:x"). */
    public String first() {
        return byName.values().iterator().next();
    }

    /** The files the arrays are in, each once, in order. */
    public List<String> files() {
        List<String> files = new ArrayList<>();
        for (String spec : byName.values()) {
            String file = NumpySource.fileOf(spec);
            if (!files.contains(file)) {
                files.add(file);
            }
        }
        return files;
    }

    /** Written as read: a string for one unnamed array, an object of names otherwise (paths as the writer resolves them). */
    static final class Writer extends StdSerializer<NumpyInputs> {
        Writer() {
            super(NumpyInputs.class);
        }

        /** An unconditional diffusion source names no inputs, and is written without "inputs". */
        @Override
        public boolean isEmpty(SerializerProvider provider, NumpyInputs inputs) {
            return inputs.byName().isEmpty();
        }

        @Override
        public void serialize(NumpyInputs inputs, JsonGenerator out, SerializerProvider provider) throws IOException {
            Object baseDir = provider.getAttribute(ConfigPathSerializer.BASE_DIR);
            if (!inputs.named()) {
                out.writeString(resolved(inputs.first(), baseDir));
                return;
            }
            out.writeStartObject();
            for (Map.Entry<String, String> e : inputs.byName().entrySet()) {
                out.writeStringField(e.getKey(), resolved(e.getValue(), baseDir));
            }
            out.writeEndObject();
        }

        private static String resolved(String spec, Object baseDir) {
            return baseDir instanceof Path dir ? dir.resolve(spec).normalize().toString() : spec;
        }
    }
}
