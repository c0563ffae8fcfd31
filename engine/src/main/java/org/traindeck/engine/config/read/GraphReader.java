package org.traindeck.engine.config.read;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.traindeck.engine.config.JsonLocations;
import org.traindeck.engine.config.LayerSpec;
import org.traindeck.engine.config.NumpyInputs;

/**
 * Reads a layer graph's "layers": each node's type, name, inputs and options (every option as its type's schema entry
 * bounds it, defaults filled in), then what makes it a graph: unique names, inputs that exist, no cycle, every node
 * used. Which shapes fit is the model compiler's to say, once the data's shape is known.
 */
final class GraphReader {

    /** The name of the data as a node's input. */
    static final String INPUT = NumpyInputs.SINGLE;

    static final Pattern NODE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_.-]{0,63}");
    private static final List<String> OWN_KEYS = List.of("type", "name", "inputs");

    private final Problems problems;
    private final List<String> dataInputs;

    /** @param dataInputs the names the data's inputs go by ("input", or a numpy source's names) */
    GraphReader(Problems problems, List<String> dataInputs) {
        this.problems = problems;
        this.dataInputs = dataInputs;
    }

    List<LayerSpec> readLayers(JsonObjectReader model) {
        JsonNode v = model.raw("layers");
        String at = model.pathOf("layers");
        if (v == null) {
            problems.error(at, "is required: a list of layers such as [{\"type\": \"dense\", \"units\": 64}]");
            return null;
        }
        SchemaNode layersSchema = model.schema().property("layers");
        long max = layersSchema.resolvedSelf().path("maxItems").asLong(Long.MAX_VALUE);
        if (!v.isArray() || v.isEmpty()) {
            problems.error(
                    at,
                    "must be a list of one or more layers, not "
                            + (v.isArray() ? "an empty list" : JsonObjectReader.describe(v)));
            return null;
        }
        if (v.size() > max) {
            // checked before any node is read: a generated graph of 100,000 nodes is refused at once
            problems.error(at, "has " + v.size() + " layers; a graph has at most " + max);
            return null;
        }
        List<LayerSpec> layers = new ArrayList<>(v.size());
        boolean complete = true;
        for (int i = 0; i < v.size(); i++) {
            String path = JsonLocations.element(at, i);
            JsonNode node = v.get(i);
            if (!node.isObject()) {
                problems.error(
                        path,
                        "must be an object such as {\"type\": \"dense\", \"units\": 64}, not "
                                + JsonObjectReader.describe(node));
                complete = false;
                continue;
            }
            LayerSpec spec = readLayer(new JsonObjectReader(problems, path, node, layersSchema.items()), i);
            complete &= spec != null;
            layers.add(spec);
        }
        if (!complete) {
            return null;
        }
        return new GraphChecks(problems, at, dataInputs).check(layers) ? layers : null;
    }

    private LayerSpec readLayer(JsonObjectReader r, int index) {
        String type = r.requiredChoice("type");
        if (type == null) {
            r.allowAnyVariantKey();
            r.finish();
            return null;
        }
        r.variant(type);
        String name = r.string("name", type + index);
        if (name != null && !NODE_NAME.matcher(name).matches()) {
            problems.error(
                    r.pathOf("name"),
                    "must be 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or '_'");
            name = null;
        } else if (INPUT.equals(name) || dataInputs.contains(name)) {
            problems.error(
                    r.pathOf("name"),
                    "\"" + name + "\" names " + (INPUT.equals(name) ? "the data" : "one of the data's inputs")
                            + "; give the layer another name");
            name = null;
        }
        List<String> inputs = readInputs(r);
        Map<String, Object> options = new LinkedHashMap<>();
        boolean ok = name != null;
        for (String key : r.schema().ownKeys()) {
            if (OWN_KEYS.contains(key)) {
                continue;
            }
            boolean missing = !r.has(key);
            if (missing && r.schema().isRequired(key)) {
                // said here, with the layer type, rather than by the plain reader's "is required"
                problems.error(r.pathOf(key), "is required for a \"" + type + "\" layer");
                ok = false;
                continue;
            }
            Object value = RecordReader.bySchema(r, key, Object.class);
            if (value == null && !missing) {
                ok = false;
            }
            if (value != null) {
                options.put(key, value);
            }
        }
        r.finish();
        return ok ? new LayerSpec(name, type, inputs, options) : null;
    }

    private List<String> readInputs(JsonObjectReader r) {
        JsonNode v = r.raw("inputs");
        if (v == null) {
            return null;
        }
        List<JsonNode> items = new ArrayList<>();
        if (v.isTextual()) {
            items.add(v);
        } else if (v.isArray() && !v.isEmpty()) {
            v.forEach(items::add);
        } else {
            problems.error(
                    r.pathOf("inputs"),
                    "must be a node's name or a list of names, such as [\"conv1\", \"skip\"], not "
                            + (v.isArray() ? "an empty list" : JsonObjectReader.describe(v)));
            return null;
        }
        List<String> names = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            if (!items.get(i).isTextual()) {
                problems.error(
                        JsonLocations.element(r.pathOf("inputs"), i),
                        "must be a node's name, not " + JsonObjectReader.describe(items.get(i)));
                return null;
            }
            names.add(items.get(i).asText());
        }
        return names;
    }

    /** The inputs each node takes, the config's or the default (the node before it; the data for the first). */
    static List<String> effectiveInputs(List<LayerSpec> layers, int index) {
        LayerSpec spec = layers.get(index);
        if (spec.inputs() != null) {
            return spec.inputs();
        }
        return List.of(index == 0 ? INPUT : layers.get(index - 1).name());
    }

    /** The inputs and the side inputs (a condition, a context) each node reads. */
    static List<String> allInputs(List<LayerSpec> layers, int index) {
        List<String> out = new ArrayList<>(effectiveInputs(layers, index));
        out.addAll(layers.get(index).sideInputs().values());
        return out;
    }

    /** Node name → its index, for the checks. */
    static Map<String, Integer> indexByName(List<LayerSpec> layers) {
        Map<String, Integer> byName = new HashMap<>();
        for (int i = 0; i < layers.size(); i++) {
            byName.putIfAbsent(layers.get(i).name(), i);
        }
        return byName;
    }
}
