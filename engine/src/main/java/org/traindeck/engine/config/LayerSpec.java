package org.traindeck.engine.config;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.io.IOException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One node of a layer graph as the config says it: its name, its type, the nodes it takes ({@code inputs}, null when
 * the config leaves them to the default: the node before it) and its options, every one the type's schema entry
 * lists, defaults filled in, in the schema's order. The options are read and bounded by the schema alone; what
 * they mean is the layer type's (org.traindeck.engine.model.graph).
 */
@JsonSerialize(using = LayerSpec.Writer.class)
public record LayerSpec(String name, String type, List<String> inputs, Map<String, Object> options) {

    /** Options that name a node or a data input besides "inputs": what a layer is conditioned on or attends to. */
    public static final List<String> SIDE_INPUTS = List.of("condition", "context");

    public LayerSpec {
        inputs = inputs == null ? null : List.copyOf(inputs);
        options = Collections.unmodifiableMap(new LinkedHashMap<>(options));
    }

    /** The side inputs the node names, option → name, in {@link #SIDE_INPUTS}' order. */
    public Map<String, String> sideInputs() {
        Map<String, String> out = new LinkedHashMap<>();
        for (String option : SIDE_INPUTS) {
            if (options.get(option) instanceof String name) {
                out.put(option, name);
            }
        }
        return out;
    }

    /** Written flat, as the config has it: name, type, inputs when given, then the options. */
    static final class Writer extends JsonSerializer<LayerSpec> {
        @Override
        public void serialize(LayerSpec spec, JsonGenerator g, SerializerProvider provider) throws IOException {
            g.writeStartObject();
            g.writeStringField("name", spec.name());
            g.writeStringField("type", spec.type());
            if (spec.inputs() != null) {
                g.writeArrayFieldStart("inputs");
                for (String input : spec.inputs()) {
                    g.writeString(input);
                }
                g.writeEndArray();
            }
            for (Map.Entry<String, Object> option : spec.options().entrySet()) {
                g.writeFieldName(option.getKey());
                provider.defaultSerializeValue(option.getValue(), g);
            }
            g.writeEndObject();
        }
    }
}
