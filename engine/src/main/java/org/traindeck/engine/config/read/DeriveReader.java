package org.traindeck.engine.config.read;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.traindeck.engine.config.DeriveConfig;
import org.traindeck.engine.config.DiffusionConfig;
import org.traindeck.engine.config.JsonLocations;
import org.traindeck.engine.config.NumpyInputs;
import org.traindeck.engine.config.Task;

/**
 * Reads a numpy source's "derive": inputs made from the targets, by name. Only a diffusion source with targets
 * derives (from its clean samples), and a derived input's name is neither one of the source's inputs nor one the
 * diffusion task makes. Whether the factor divides the samples' size is known once the targets' header is read.
 */
final class DeriveReader {

    private DeriveReader() {}

    static Map<String, DeriveConfig> read(JsonObjectReader r, Problems problems, Map<String, Object> soFar) {
        JsonNode v = r.raw("derive");
        if (v == null) {
            return Map.of();
        }
        String at = r.pathOf("derive");
        if (!applies(v, at, problems, soFar)) {
            return Map.of();
        }
        JsonObjectReader derive = r.object("derive");
        SchemaNode entry = derive.schema().additional();
        long max = r.schema().resolved("derive").path("maxProperties").asLong(Long.MAX_VALUE);
        if (v.size() > max) {
            problems.error(at, "names " + v.size() + " inputs; a source derives at most " + max);
            return Map.of();
        }
        NumpyInputs inputs = (NumpyInputs) soFar.get("inputs");
        Map<String, DeriveConfig> out = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String name = e.getKey();
            String where = JsonLocations.child(at, name);
            derive.allow(name);
            String nameProblem = nameProblem(name, inputs);
            if (nameProblem != null) {
                problems.error(where, nameProblem);
                continue;
            }
            if (!e.getValue().isObject()) {
                problems.error(
                        where,
                        "must be an object such as {\"downsample\": 2, \"noise\": 0.1}, not "
                                + JsonObjectReader.describe(e.getValue()));
                continue;
            }
            DeriveConfig d =
                    RecordReader.read(new JsonObjectReader(problems, where, e.getValue(), entry), DeriveConfig.class);
            if (d != null) {
                out.put(name, d);
            }
        }
        derive.finish();
        return out;
    }

    /** Whether "derive" is an object in a diffusion source with targets; says why not where it is not. */
    private static boolean applies(JsonNode v, String at, Problems problems, Map<String, Object> soFar) {
        if (!v.isObject()) {
            problems.error(
                    at,
                    "must be an object of derived inputs, e.g. {\"lowres\": {\"downsample\": 2}}, not "
                            + JsonObjectReader.describe(v));
            return false;
        }
        if (soFar.get("task") != Task.DIFFUSION) {
            problems.error(
                    at, "applies to task \"diffusion\" only: it derives inputs from the clean samples (targets)");
            return false;
        }
        if (soFar.get("targets") == null) {
            problems.error(at, "needs \"targets\": a derived input is made from the source's targets");
            return false;
        }
        return true;
    }

    /** What is wrong with a derived input's name, or null when nothing is. */
    private static String nameProblem(String name, NumpyInputs inputs) {
        if (!GraphReader.NODE_NAME.matcher(name).matches()) {
            return "an input's name is 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or '_'";
        }
        if (DiffusionConfig.made(name)) {
            return "\"" + name + "\" is an input the diffusion task makes (the noised sample \"noisy\", its"
                    + " timestep \"timestep\"): give the derived input another name";
        }
        if (inputs != null && inputs.byName().containsKey(name)) {
            return "\"" + name + "\" is already one of the source's inputs: give the derived input another name";
        }
        return null;
    }
}
