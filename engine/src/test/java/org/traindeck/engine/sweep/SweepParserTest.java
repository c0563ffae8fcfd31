package org.traindeck.engine.sweep;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.InvalidConfigException;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** A sweep file's problems are located as a run config's are: line, column, and the key that was probably meant. */
class SweepParserTest {

    private static List<ConfigProblem> problems(Path file) {
        return catchThrowableOfType(() -> SweepParser.load(file), InvalidConfigException.class).problems();
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

    @Test
    void aFileThatCannotBeASweepIsRefusedBeforeItIsRead(@TempDir Path dir) throws Exception {
        Path huge = dir.resolve("huge.json");
        Files.write(huge, new byte[3 << 20]);
        assertThat(problems(huge)).singleElement().satisfies(p -> assertThat(p.message()).contains("3.1 MB").contains("at most 1024 kB"));

        Path latin1 = dir.resolve("latin1.json");
        Files.write(latin1, "{\"name\": \"caf\u00e9\"}".getBytes(StandardCharsets.ISO_8859_1));
        assertThat(problems(latin1)).singleElement().satisfies(p -> assertThat(p.message()).endsWith("is not UTF-8 text"));
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
