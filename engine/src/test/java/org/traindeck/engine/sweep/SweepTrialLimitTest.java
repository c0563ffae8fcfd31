package org.traindeck.engine.sweep;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.InvalidConfigException;

/** A sweep is counted before it is expanded, and one above its "maxTrials" is refused with the count, located. */
class SweepTrialLimitTest {

    private static final String BASE = """
            {"name": "base", "model": {"type": "mlp"}, "data": {"train": {"type": "synthetic"}}, "stages": [{"epochs": 1}]}
            """;

    private static String values(int n) {
        return IntStream.rangeClosed(1, n).mapToObj(Integer::toString).collect(Collectors.joining(", ", "[", "]"));
    }

    private static List<ConfigProblem> problems(Path file) {
        return catchThrowableOfType(() -> SweepParser.load(file), InvalidConfigException.class)
                .problems();
    }

    @Test
    void aBillionTrialGridIsRefusedWithItsCountWhereItsParametersAre(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("base.json"), BASE);
        Path sweep = dir.resolve("sweep.json");
        Files.writeString(
                sweep,
                "{\"name\": \"huge\", \"base\": \"base.json\", \"metric\": \"val/loss\",\n"
                        + " \"parameters\": {\"stages[0].epochs\": " + values(1000) + ",\n"
                        + "   \"stages[0].batchSize\": " + values(1000) + ", \"seed\": " + values(1000) + "}}\n");

        assertThat(problems(sweep)).singleElement().satisfies(p -> {
            assertThat(p.path()).isEqualTo("parameters");
            assertThat(p.message())
                    .contains("1000000000 trials")
                    .contains("1000 × 1000 × 1000")
                    .contains("maxTrials");
            assertThat(p.line()).isEqualTo(2);
            assertThat(p.column()).isEqualTo(16);
        });
    }

    @Test
    void aGridWhoseCountOverflowsALongIsRefusedNotWrappedAround(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("base.json"), BASE);
        StringBuilder parameters = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            parameters
                    .append(i == 0 ? "" : ", ")
                    .append("\"stages[0].p")
                    .append(i)
                    .append("\": ")
                    .append(values(1000));
        }
        Path sweep = dir.resolve("sweep.json");
        Files.writeString(
                sweep,
                "{\"name\": \"huge\", \"base\": \"base.json\", \"metric\": \"val/loss\", \"parameters\": {" + parameters
                        + "}}");

        assertThat(problems(sweep))
                .singleElement()
                .satisfies(p -> assertThat(p.message()).contains("more than " + Long.MAX_VALUE + " trials"));
    }

    @Test
    void theLimitCanBeRaisedAndAGridWithinItExpandsInOrder(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("base.json"), BASE);
        Path sweep = dir.resolve("sweep.json");
        Files.writeString(
                sweep,
                "{\"name\": \"g\", \"base\": \"base.json\", \"metric\": \"val/loss\", \"maxTrials\": 1200,\n"
                        + " \"parameters\": {\"stages[0].epochs\": " + values(40) + ", \"stages[0].batchSize\": "
                        + values(30) + "}}");
        SweepSpec spec = SweepParser.load(sweep);
        assertThat(SweepTrials.count(spec)).isEqualTo(1200);
        List<SweepTrials.Trial> trials = SweepTrials.expand(spec);
        assertThat(trials).hasSize(1200);
        assertThat(trials.get(0).describe()).isEqualTo("stages[0].epochs=1, stages[0].batchSize=1");
        assertThat(trials.get(1).describe()).isEqualTo("stages[0].epochs=1, stages[0].batchSize=2");
        assertThat(trials.get(1199).describe()).isEqualTo("stages[0].epochs=40, stages[0].batchSize=30");
        assertThat(trials.get(1199).label()).isEqualTo("g-1200");

        Files.writeString(sweep, Files.readString(sweep).replace("\"maxTrials\": 1200", "\"maxTrials\": 1199"));
        assertThat(problems(sweep))
                .singleElement()
                .satisfies(p -> assertThat(p.message()).contains("1200 trials").contains("maxTrials 1199"));
    }

    @Test
    void randomTrialsAreBoundTheSameWay(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("base.json"), BASE);
        Path sweep = dir.resolve("sweep.json");
        Files.writeString(sweep, """
                {"name": "r", "base": "base.json", "metric": "val/loss", "method": "random",
                 "trials": 5000, "parameters": {"stages[0].epochs": [1, 2]}}
                """);
        assertThat(problems(sweep)).singleElement().satisfies(p -> {
            assertThat(p.path()).isEqualTo("trials");
            assertThat(p.message()).contains("5000").contains("maxTrials 1000");
            assertThat(p.line()).isEqualTo(2);
        });

        Files.writeString(
                sweep, Files.readString(sweep).replace("\"trials\": 5000", "\"trials\": 5000, \"maxTrials\": 5000"));
        assertThat(SweepTrials.count(SweepParser.load(sweep))).isEqualTo(5000);

        Files.writeString(sweep, Files.readString(sweep).replace("\"maxTrials\": 5000", "\"maxTrials\": 0"));
        assertThat(problems(sweep))
                .singleElement()
                .satisfies(p -> assertThat(p.path()).isEqualTo("maxTrials"));
    }
}
