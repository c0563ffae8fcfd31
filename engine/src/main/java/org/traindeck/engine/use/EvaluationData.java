package org.traindeck.engine.use;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.DataConfig;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.ValidationResult;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.config.read.ConfigWriter;
import org.traindeck.engine.data.DataLoader;

/**
 * The data an evaluation runs on: {@code --data} (a run config's {@code data.test}, or one source as JSON, a file
 * or inline), else the run's own {@code data.test}, else its validation data (said so). A given source is checked by
 * the config validator as the run's {@code data.test} would be, and read against the training data (its classes,
 * vocabulary and normalisation).
 */
final class EvaluationData {

    /** The evaluation's samples, what they are in words, and the data files to close. */
    record Chosen(DataLoader.Loaded loaded, String description) {}

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> PATH_FIELDS =
            List.of("path", "images", "masks", "inputs", "targets", "targetMask");

    private EvaluationData() {}

    static Chosen choose(RunConfig config, int stageIndex, String dataArg) {
        int stage = Math.max(0, Math.min(stageIndex, config.stages().size() - 1));
        boolean ownData = config.stages().get(stage).data() != null;
        String dataPath = ownData ? "stages[" + stage + "].data" : "data";
        if (dataArg != null && !dataArg.isBlank()) {
            RunConfig withTest = withGivenTest(config, dataPath, dataArg.trim());
            DataConfig d = withTest.dataFor(withTest.stages().get(stage));
            return new Chosen(DataLoader.loadTest(withTest, d, d.test(), "--data"), "--data " + dataArg.trim());
        }
        DataConfig d = config.dataFor(config.stages().get(stage));
        if (d.test() != null) {
            return new Chosen(DataLoader.loadTest(config, d, d.test(), dataPath + ".test"), dataPath + ".test");
        }
        DataLoader.Loaded loaded = DataLoader.load(config, d, dataPath);
        if (loaded.validation() == null) {
            loaded.close();
            throw new InvalidConfigException(
                    dataPath + ".test",
                    "the run has no test data and no validation data to evaluate on:"
                            + " give some with --data (a run config with \"data\": {\"test\": {...}}, or a source such as"
                            + " {\"type\": \"csv\", \"path\": \"test.csv\"})");
        }
        String which = d.validation() != null
                ? dataPath + ".validation"
                : "the validation split (" + d.validationSplit() + ")";
        return new Chosen(loaded, which + ", as the config has no " + dataPath + ".test");
    }

    /** The run's config with {@code --data}'s source as its test data, checked like any config. */
    private static RunConfig withGivenTest(RunConfig config, String dataPath, String dataArg) {
        JsonNode source;
        if (dataArg.startsWith("{")) {
            source = absolute(parseJson(dataArg, "--data"), Path.of("").toAbsolutePath());
        } else {
            Path file = Path.of(dataArg);
            if (!Files.isRegularFile(file)) {
                throw new InvalidConfigException(
                        "--data",
                        "no such file: " + file.toAbsolutePath() + " (give a run config with"
                                + " \"data\": {\"test\": {...}}, a source as a .json file, or a source as JSON text)");
            }
            JsonNode given;
            try {
                given = parseJson(Files.readString(file), "--data " + file);
            } catch (IOException e) {
                throw new InvalidConfigException("--data", "cannot read " + file + ": " + e.getMessage());
            }
            if (given.has("data")) {
                ValidationResult parsed = ConfigParser.load(file);
                if (!parsed.isValid()) {
                    throw new InvalidConfigException(parsed.errors().stream()
                            .map(p -> relocate(p, "", file + ": "))
                            .toList());
                }
                if (parsed.config().data().test() == null) {
                    throw new InvalidConfigException(
                            "--data",
                            file + " has no data.test: add \"test\": {...} (a source, like"
                                    + " data.train) to its \"data\"");
                }
                source = parseJson(ConfigWriter.toJsonWithAbsolutePaths(parsed.config()), "--data")
                        .path("data")
                        .path("test");
            } else {
                source = absolute(given, file.toAbsolutePath().getParent());
            }
        }
        if (!source.isObject() || !source.has("type")) {
            throw new InvalidConfigException(
                    "--data",
                    "is not a data source: a source is a JSON object with a \"type\", like the"
                            + " config's data.train (for example {\"type\": \"numpy\", \"inputs\": \"x.npy\", \"targets\": \"y.npy\"})");
        }
        ObjectNode root = (ObjectNode) parseJson(ConfigWriter.toJsonWithAbsolutePaths(config), "the run's config");
        JsonNode data = dataPath.equals("data")
                ? root.path("data")
                : root.path("stages")
                        .path(Integer.parseInt(dataPath.replaceAll("\\D", "")))
                        .path("data");
        ((ObjectNode) data).set("test", source);
        ValidationResult parsed = ConfigParser.parse(root.toPrettyString(), config.baseDir());
        if (!parsed.isValid()) {
            throw new InvalidConfigException(parsed.errors().stream()
                    .map(p -> relocate(p, dataPath + ".test", ""))
                    .toList());
        }
        return parsed.config();
    }

    /** A problem of the spliced-in source, named as the user gave it. */
    private static ConfigProblem relocate(ConfigProblem p, String prefix, String before) {
        String path = prefix.isEmpty()
                ? p.path()
                : p.path().startsWith(prefix) ? "--data" + p.path().substring(prefix.length()) : p.path();
        return new ConfigProblem(
                p.severity(),
                path,
                before + p.message(),
                prefix.isEmpty() ? p.line() : 0,
                prefix.isEmpty() ? p.column() : 0,
                p.namesItsSubject());
    }

    private static JsonNode parseJson(String text, String what) {
        try {
            return JSON.readTree(text);
        } catch (JsonProcessingException e) {
            throw new InvalidConfigException("--data", what + " is not valid JSON: " + e.getOriginalMessage());
        }
    }

    /** The source's file paths resolved against the folder it was given in, as the config copy in a run holds them. */
    private static JsonNode absolute(JsonNode source, Path base) {
        if (source.isObject()) {
            ObjectNode o = ((ObjectNode) source).deepCopy();
            for (String field : PATH_FIELDS) {
                JsonNode v = o.get(field);
                if (v != null && v.isTextual() && !v.asText().isBlank()) {
                    o.put(field, base.resolve(v.asText()).normalize().toString());
                } else if (v != null && v.isObject()) {
                    // named inputs: each array's path
                    ObjectNode named = ((ObjectNode) v).deepCopy();
                    named.fields().forEachRemaining(e -> {
                        if (e.getValue().isTextual()) {
                            e.setValue(named.textNode(base.resolve(e.getValue().asText())
                                    .normalize()
                                    .toString()));
                        }
                    });
                    o.set(field, named);
                }
            }
            return o;
        }
        return source;
    }
}
