package org.traindeck.engine.config.read;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.traindeck.engine.config.JsonLocations;
import org.traindeck.engine.config.NumpyInputs;
import org.traindeck.engine.config.NumpySource;
import org.traindeck.engine.config.SourceConfig;
import org.traindeck.engine.config.Task;

/** Reads a numpy source: its inputs (one array or named arrays), the keys that apply to some tasks only, its files. */
final class NumpySourceReader {

    private final Problems problems;
    private final SourceFiles files;

    NumpySourceReader(Problems problems, SourceFiles files) {
        this.problems = problems;
        this.files = files;
    }

    SourceConfig read(JsonObjectReader r) {
        NumpySource n = RecordReader.read(
                r,
                NumpySource.class,
                Map.of(
                        "inputs", soFar -> readInputs(r),
                        "diffusion", soFar -> DiffusionReader.read(r, problems, soFar.get("task") == Task.DIFFUSION),
                        "derive", soFar -> DeriveReader.read(r, problems, soFar)));
        if (n == null) {
            return null;
        }
        if (n.task() == Task.DIFFUSION) {
            DiffusionReader.check(r, problems, n);
        }
        for (Map.Entry<String, String> input : n.inputs().byName().entrySet()) {
            String at =
                    n.inputs().named() ? JsonLocations.child(r.pathOf("inputs"), input.getKey()) : r.pathOf("inputs");
            files.checkExists(at, NumpySource.fileOf(input.getValue()), false);
        }
        if (n.targets() != null) {
            files.checkExists(r.pathOf("targets"), NumpySource.fileOf(n.targets()), false);
        }
        if (n.targetMask() != null) {
            files.checkExists(r.pathOf("targetMask"), NumpySource.fileOf(n.targetMask()), false);
            boolean perStep = n.targets() != null
                    && (n.task() == Task.SEQUENCE
                            || n.task() == Task.REGRESSION && n.inputs().named());
            if (!perStep) {
                problems.error(
                        r.pathOf("targetMask"),
                        "applies to per-step targets only (task \"sequence\" or \"regression\" with named inputs"
                                + " and \"targets\")");
            }
        }
        if (n.context() != null && n.task() != Task.SEQUENCE) {
            problems.error(r.pathOf("context"), "applies to task \"sequence\" only");
        }
        if (n.noise() > 0 && n.task() != Task.RECONSTRUCTION) {
            problems.error(
                    r.pathOf("noise"),
                    "applies to task \"reconstruction\" only (noise on the inputs, the clean input as target)");
        }
        if (n.numClasses() != null && (n.task() == Task.REGRESSION || n.task() == Task.RECONSTRUCTION)) {
            problems.error(r.pathOf("numClasses"), "applies to classification, segmentation and sequence only");
        }
        return n;
    }

    /** One array as a string, or named arrays as an object of name → array, each checked where it is written. */
    private NumpyInputs readInputs(JsonObjectReader r) {
        JsonNode v = r.raw("inputs");
        String at = r.pathOf("inputs");
        if (v == null && DiffusionReader.diffusion(r)) {
            return new NumpyInputs(Map.of(), true);
        }
        if (v == null) {
            problems.error(at, "is required: the array to train on, \"x.npy\" or \"data.npz:x\"");
            return null;
        }
        if (v.isTextual() && !v.asText().isEmpty()) {
            return NumpyInputs.single(v.asText());
        }
        if (!v.isObject() || v.isEmpty()) {
            problems.error(
                    at,
                    "must be an array's file (\"x.npy\", \"data.npz:x\") or named arrays such as {\"image\": "
                            + "\"set.npz:img\", \"meta\": \"set.npz:meta\"}, not " + JsonObjectReader.describe(v));
            return null;
        }
        long max = 0;
        for (JsonNode form : r.schema().resolved("inputs").path("oneOf")) {
            max = Math.max(max, form.path("maxProperties").asLong(0));
        }
        if (v.size() > max) {
            problems.error(at, "names " + v.size() + " arrays; a source has at most " + max + " inputs");
            return null;
        }
        Map<String, String> byName = new LinkedHashMap<>();
        boolean ok = true;
        for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String where = JsonLocations.child(at, e.getKey());
            if (!GraphReader.NODE_NAME.matcher(e.getKey()).matches()) {
                problems.error(
                        where,
                        "an input's name is 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or '_'");
                ok = false;
            } else if (!e.getValue().isTextual() || e.getValue().asText().isEmpty()) {
                problems.error(
                        where,
                        "must be an array's file, \"x.npy\" or \"data.npz:x\", not "
                                + JsonObjectReader.describe(e.getValue()));
                ok = false;
            } else {
                byName.put(e.getKey(), e.getValue().asText());
            }
        }
        return ok ? new NumpyInputs(byName, true) : null;
    }
}
