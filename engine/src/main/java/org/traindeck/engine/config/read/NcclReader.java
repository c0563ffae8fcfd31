package org.traindeck.engine.config.read;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.traindeck.engine.config.NcclConfig;

/**
 * Reads the "nccl" section: the known toggles, each with its own value rules, and custom environment variables,
 * whose names are free and so cannot be listed by the schema.
 */
final class NcclReader {

    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");

    private final Problems problems;

    NcclReader(Problems problems) {
        this.problems = problems;
    }

    NcclConfig readNccl(JsonObjectReader r) {
        Map<String, String> toggles = new LinkedHashMap<>();
        for (NcclConfig.Toggle t : NcclConfig.KNOWN) {
            JsonNode v = r.raw(t.name());
            if (v == null) {
                continue;
            }
            String at = r.pathOf(t.name());
            if (!v.isTextual() && !v.isIntegralNumber()) {
                problems.error(at, "must be a string or a whole number, not " + JsonObjectReader.describe(v));
                continue;
            }
            String value = v.asText().strip();
            String problem = ncclValueProblem(t.name(), value);
            if (problem != null) {
                problems.error(at, problem);
                continue;
            }
            toggles.put(t.name(), value);
        }
        Map<String, String> custom = new LinkedHashMap<>();
        JsonObjectReader customReader = r.object("custom");
        if (customReader != null) {
            JsonNode node = r.raw("custom");
            node.fieldNames().forEachRemaining(name -> {
                customReader.allow(name);
                JsonNode v = node.get(name);
                String at = customReader.pathOf(name);
                if (!ENV_NAME.matcher(name).matches()) {
                    problems.error(
                            at,
                            "is not a valid environment variable name (letters, digits and _, not starting with a digit)");
                } else if (NcclConfig.known(name) != null) {
                    problems.error(at, name + " is a known toggle: set it in \"nccl\" itself");
                } else if (!v.isTextual() && !v.isNumber() && !v.isBoolean()) {
                    problems.error(at, "must be a string, number or boolean, not " + JsonObjectReader.describe(v));
                } else {
                    custom.put(name, v.asText());
                }
            });
            customReader.finish();
        }
        r.finish();
        return new NcclConfig(toggles, custom);
    }

    static String ncclValueProblem(String name, String value) {
        switch (name) {
            case "NCCL_TIMEOUT":
                return value.matches("\\d{1,7}") && Integer.parseInt(value) >= 1
                        ? null
                        : "must be a whole number of seconds ≥ 1";
            case "NCCL_BLOCKING_WAIT", "NCCL_IB_DISABLE", "NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE":
                return value.equals("0") || value.equals("1") ? null : "must be 0 or 1";
            case "NCCL_DEBUG":
                return List.of("VERSION", "WARN", "INFO", "TRACE").contains(value)
                        ? null
                        : "must be VERSION, WARN, INFO or TRACE";
            case "NCCL_NSOCKS_PERTHREAD":
                return value.matches("\\d{1,2}") && Integer.parseInt(value) >= 1 && Integer.parseInt(value) <= 64
                        ? null
                        : "must be 1 to 64";
            case "NCCL_SOCKET_NTHREADS":
                return value.matches("\\d{1,2}") && Integer.parseInt(value) >= 1 && Integer.parseInt(value) <= 16
                        ? null
                        : "must be 1 to 16";
            case "NCCL_SOCKET_IFNAME":
                return value.matches("[=^]?[A-Za-z0-9_.:-]+(,[A-Za-z0-9_.:-]+)*")
                        ? null
                        : "must be interface names separated by commas, such as eth0,lo";
            default:
                return null;
        }
    }
}
