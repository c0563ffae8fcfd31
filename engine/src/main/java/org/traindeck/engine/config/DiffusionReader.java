package org.traindeck.engine.config;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What a numpy source of task "diffusion" needs beyond the schema: its "diffusion" options (the schema's defaults
 * when left out, refused on another task), the clean samples as targets, and conditioning inputs whose names are not
 * the two the task makes.
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
        return RecordReader.read(r.section("diffusion"), DiffusionConfig.class);
    }

    static void check(JsonObjectReader r, Problems problems, SourceConfig.Numpy n) {
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
    }
}
