package org.traindeck.engine.config.read;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.traindeck.engine.config.DiffusionConfig;
import org.traindeck.engine.config.DiffusionSampling;
import org.traindeck.engine.config.JsonLocations;
import org.traindeck.engine.config.NumpySource;
import org.traindeck.engine.config.Task;

/**
 * What a numpy source of task "diffusion" needs beyond the schema: its "diffusion" options (the schema's defaults
 * when left out, refused on another task), the clean samples as targets, and conditioning inputs whose names are not
 * the two the task makes; validation's sampling when asked for, and projections that name conditioning inputs.
 */
final class DiffusionReader {

    private DiffusionReader() {}

    /** Whether the source's task is diffusion, as written (before the record is read). */
    static boolean diffusion(JsonObjectReader r) {
        JsonNode task = r.raw("task");
        return task != null && Task.DIFFUSION.json.equals(task.asText());
    }

    static DiffusionConfig read(JsonObjectReader r, Problems problems, boolean diffusion) {
        JsonObjectReader options = r.object("diffusion");
        if (!diffusion) {
            if (options != null) {
                problems.error(r.pathOf("diffusion"), "applies to task \"diffusion\" only");
                options.allowAnyVariantKey();
                options.finish();
            }
            return null;
        }
        JsonObjectReader section = r.section("diffusion");
        return RecordReader.read(
                section,
                DiffusionConfig.class,
                Map.of(
                        "sampling", soFar -> sampling(section),
                        "projections", soFar -> projections(section, problems)));
    }

    private static DiffusionSampling sampling(JsonObjectReader options) {
        JsonObjectReader sampling = options.object("sampling");
        return sampling == null ? null : RecordReader.read(sampling, DiffusionSampling.class);
    }

    /** Input name → axis, in the order written; a wrong axis is reported (the names are checked with the inputs). */
    private static Map<String, String> projections(JsonObjectReader options, Problems problems) {
        JsonNode v = options.raw("projections");
        if (v == null) {
            return Map.of();
        }
        String at = options.pathOf("projections");
        if (!v.isObject()) {
            problems.error(
                    at,
                    "must map conditioning inputs to the axis each is the mean along, such as {\"front\": \"depth\"},"
                            + " not " + JsonObjectReader.describe(v));
            return null;
        }
        List<String> axes = new ArrayList<>();
        options.schema()
                .resolved("projections")
                .path("additionalProperties")
                .path("enum")
                .forEach(a -> axes.add(a.asText()));
        Map<String, String> byInput = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String axis = e.getValue().isTextual() ? e.getValue().asText() : null;
            if (!axes.contains(axis)) {
                problems.error(
                        JsonLocations.child(at, e.getKey()),
                        "must be one of " + String.join(", ", axes) + " (the volume's axis this view is the mean"
                                + " along), not " + JsonObjectReader.describe(e.getValue()));
                return null;
            }
            byInput.put(e.getKey(), axis);
        }
        return byInput;
    }

    static void check(JsonObjectReader r, Problems problems, NumpySource n) {
        if (n.targets() == null) {
            problems.error(
                    r.pathOf("targets"),
                    "is required for diffusion: the clean samples the model learns to generate, images [N, H, W, C]"
                            + " or volumes [N, D, H, W, C] (\"data.npz:x\")");
        }
        if (n.numClasses() != null) {
            problems.error(r.pathOf("numClasses"), "applies to classification, segmentation and sequence only");
        }
        for (String name : n.inputs().names()) {
            if (DiffusionConfig.made(name)) {
                problems.error(
                        JsonLocations.child(r.pathOf("inputs"), name),
                        "\"" + name + "\" is the input the diffusion task makes (the noised sample \"noisy\", its"
                                + " timestep \"timestep\"): give this conditioning array another name");
            }
        }
        DiffusionConfig d = n.diffusion();
        if (d == null) {
            return;
        }
        String projections = JsonLocations.child(r.pathOf("diffusion"), "projections");
        for (String name : d.projections().keySet()) {
            if (!n.inputs().byName().containsKey(name) || DiffusionConfig.made(name)) {
                problems.error(
                        JsonLocations.child(projections, name),
                        "names no conditioning input of this source"
                                + (n.inputs().names().isEmpty()
                                        ? " (it has none)"
                                        : " (its inputs: "
                                                + String.join(", ", n.inputs().names()) + ")"));
            }
        }
        if (!d.projections().isEmpty() && d.sampling() == null) {
            problems.error(
                    projections,
                    "compares generated samples with the views: it needs \"sampling\" in this \"diffusion\" block");
        }
    }
}
