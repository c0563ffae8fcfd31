package org.traindeck.engine.config.read;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.traindeck.engine.config.InitConfig;
import org.traindeck.engine.config.JsonLocations;

/**
 * Reads a model's {@code init}: {@code from} (required), {@code strict}, and {@code map}, whose keys must be regular
 * expressions and whose values names. Whether the file is there and fits the model is checked when the model is
 * compiled (a stored config must still open after the file is gone).
 */
final class InitReader {

    private final Problems problems;

    InitReader(Problems problems) {
        this.problems = problems;
    }

    /** The model's init, or null when it has none or it is wrong (reported). */
    InitConfig read(JsonObjectReader model) {
        JsonObjectReader r = model.object("init");
        if (r == null) {
            return null;
        }
        String from = r.requiredString("from");
        if (from != null && from.isBlank()) {
            problems.error(r.pathOf("from"), "must name a file, a run folder or a checkpoint");
            from = null;
        }
        Map<String, String> map = readMap(r);
        boolean strict = r.bool("strict");
        r.finish();
        return from == null || map == null ? null : new InitConfig(from, map, strict);
    }

    private Map<String, String> readMap(JsonObjectReader r) {
        JsonNode v = r.raw("map");
        Map<String, String> out = new LinkedHashMap<>();
        if (v == null) {
            return out;
        }
        String at = r.pathOf("map");
        if (!v.isObject()) {
            problems.error(
                    at,
                    "must be an object {\"regular expression\": \"name\", ...}, not " + JsonObjectReader.describe(v));
            return null;
        }
        boolean ok = true;
        for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String keyAt = JsonLocations.child(at, e.getKey());
            try {
                Pattern.compile(e.getKey());
            } catch (PatternSyntaxException bad) {
                problems.error(
                        keyAt, "is not a regular expression: " + bad.getDescription() + " at index " + bad.getIndex());
                ok = false;
                continue;
            }
            if (!e.getValue().isTextual() || e.getValue().asText().isBlank()) {
                problems.error(
                        keyAt,
                        "must be the tensor's new name (text, $1 for a group), not "
                                + JsonObjectReader.describe(e.getValue()));
                ok = false;
                continue;
            }
            out.put(e.getKey(), e.getValue().asText());
        }
        return ok ? out : null;
    }
}
