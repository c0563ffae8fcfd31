package org.traindeck.engine.sweep;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.events.MetricNames;

/** A sweep file's problems are located as a run config's are: line, column, and the key that was probably meant. */
class SweepParserTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static List<ConfigProblem> problems(Path file) {
        return catchThrowableOfType(() -> SweepParser.load(file), InvalidConfigException.class)
                .problems();
    }

    /** Without a goal, a sweep of a segmentation's IoU or an autoencoder's PSNR looked for the lowest. */
    @Test
    void withoutAGoalTheMetricsOwnDirectionIsTheBetterOne(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("base.json"), """
                {"name": "b", "model": {"type": "mlp", "hidden": [4]},
                 "data": {"train": {"type": "synthetic", "samples": 16, "features": 4, "numClasses": 2}},
                 "stages": [{"epochs": 1, "batchSize": 4}]}
                """);
        Path sweep = dir.resolve("sweep.json");
        List<Boolean> maximized = new ArrayList<>();
        for (String metric : List.of(
                MetricNames.VAL_MEAN_IOU,
                MetricNames.VAL_PSNR,
                MetricNames.ofEma(MetricNames.VAL_PIXEL_ACCURACY),
                MetricNames.VAL_PERPLEXITY,
                MetricNames.VAL_LOSS)) {
            Files.writeString(sweep, """
                    {"name": "s", "base": "base.json", "metric": "%s", "parameters": {"stages[0].epochs": [1]}}
                    """.formatted(metric));
            maximized.add(SweepParser.load(sweep).maximize());
        }

        assertThat(maximized).containsExactly(true, true, true, false, false);
    }

    @Test
    void everyProblemNamesItsLineAndColumnAndAMistypedKeyTheOneMeant(@TempDir Path dir) throws Exception {
        Path sweep = dir.resolve("sweep.json");
        Files.writeString(sweep, """
                {"name": "bad", "base": "missing.json",
                 "trails": 3, "metric": "val/loss",
                 "parameters": {"stages[0].epochs": [1]}, "goal": "up"}
                """);

        List<ConfigProblem> problems = problems(sweep);

        assertThat(problems).anySatisfy(p -> {
            assertThat(p.path()).isEqualTo("trails");
            assertThat(p.message()).startsWith("unknown key: did you mean \"trials\"?");
            assertThat(p.line()).isEqualTo(2);
            assertThat(p.column()).isEqualTo(12);
        });
        assertThat(problems).anySatisfy(p -> {
            assertThat(p.path()).isEqualTo("goal");
            assertThat(p.toString()).contains("\"up\" is not max or min").endsWith("(line 3, column 51)");
        });
        assertThat(problems).anySatisfy(p -> {
            assertThat(p.path()).isEqualTo("base");
            assertThat(p.line()).isEqualTo(1);
        });
    }

    /** Each value of a full sweep file left out or given another kind: refused with a reason or accepted, never a crash. */
    @Test
    void everyValueLeftOutOrOfAnotherKindIsAProblemNotACrash(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("base.json"), """
                {"name": "base", "model": {"type": "mlp"}, "data": {"train": {"type": "synthetic"}}, "stages": [{"epochs": 1}]}
                """);
        ObjectNode full = (ObjectNode) JSON.readTree("""
                {"name": "s", "base": "base.json", "method": "random", "trials": 2, "seed": 3, "metric": "val/loss", "goal": "min",
                 "concurrent": 1, "parameters": {"stages[0].optimizer.learningRate": {"min": 0.0001, "max": 0.1, "scale": "log"},
                                                 "stages[0].batchSize": [16, 32]}}
                """);
        List<JsonNode> spoilt = List.of(
                TextNode.valueOf("x"),
                DoubleNode.valueOf(1.5),
                IntNode.valueOf(-1),
                JSON.createObjectNode(),
                JSON.createArrayNode(),
                NullNode.getInstance(),
                BooleanNode.TRUE,
                MissingNode.getInstance());
        List<String> pointers = new ArrayList<>();
        full.fields().forEachRemaining(f -> pointers.add("/" + f.getKey()));
        full.get("parameters").fields().forEachRemaining(f -> pointers.add("/parameters/" + f.getKey()));
        full.at("/parameters/stages[0].optimizer.learningRate")
                .fieldNames()
                .forEachRemaining(k -> pointers.add("/parameters/stages[0].optimizer.learningRate/" + k));
        List<String> crashes = new ArrayList<>();
        Path file = dir.resolve("sweep.json");
        for (String pointer : pointers) {
            for (JsonNode value : spoilt) {
                ObjectNode copy = full.deepCopy();
                int cut = pointer.lastIndexOf('/');
                ObjectNode parent = (ObjectNode) copy.at(pointer.substring(0, cut));
                if (value.isMissingNode()) {
                    parent.remove(pointer.substring(cut + 1));
                } else {
                    parent.set(pointer.substring(cut + 1), value);
                }
                Files.writeString(file, JSON.writeValueAsString(copy));
                try {
                    SweepTrials.expand(SweepParser.load(file));
                } catch (InvalidConfigException e) {
                    if (e.problems().isEmpty()) {
                        crashes.add(pointer + " = " + value + ": refused without a reason");
                    }
                } catch (RuntimeException e) {
                    crashes.add(pointer + " = " + (value.isMissingNode() ? "(left out)" : value) + ": " + e);
                }
            }
        }
        assertThat(crashes).isEmpty();
    }

    @Test
    void aFileThatCannotBeASweepIsRefusedBeforeItIsRead(@TempDir Path dir) throws Exception {
        Path huge = dir.resolve("huge.json");
        Files.write(huge, new byte[3 << 20]);
        assertThat(problems(huge))
                .singleElement()
                .satisfies(p -> assertThat(p.message()).contains("3.1 MB").contains("at most 1024 kB"));

        Path latin1 = dir.resolve("latin1.json");
        Files.write(latin1, "{\"name\": \"caf\u00e9\"}".getBytes(StandardCharsets.ISO_8859_1));
        assertThat(problems(latin1))
                .singleElement()
                .satisfies(p -> assertThat(p.message()).endsWith("is not UTF-8 text"));
    }

    @Test
    void aKeyWrittenTwiceAndBrokenJsonAreLocatedToo(@TempDir Path dir) throws Exception {
        Path sweep = dir.resolve("sweep.json");
        Files.writeString(sweep, """
                {"name": "a",
                 "name": "b"}
                """);
        assertThat(problems(sweep)).singleElement().satisfies(p -> {
            assertThat(p.message()).contains("is not valid JSON").contains("name");
            assertThat(p.line()).isEqualTo(2);
        });

        Files.writeString(sweep, "{\"name\": \"a\",\n \"base\": }\n");
        assertThat(problems(sweep)).singleElement().satisfies(p -> {
            assertThat(p.message()).contains("is not valid JSON");
            assertThat(p.line()).isEqualTo(2);
        });
    }
}
