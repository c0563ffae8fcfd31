package org.traindeck.engine.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A config file too large to be one, and one with thousands of problems: a short, clear answer. */
class HostileConfigTest {

    @Test
    void aMultiMegabyteFileIsRefusedBeforeItIsParsed(@TempDir Path dir) throws Exception {
        Path big = dir.resolve("big.json");
        Files.writeString(big, "{\"name\": \"x\", \"junk\": \"" + "a".repeat(50 << 20) + "\"}");
        long start = System.nanoTime();

        ValidationResult r = ConfigParser.load(big);

        assertThat((System.nanoTime() - start) / 1e9).as("seconds").isLessThan(5);
        assertThat(r.errors()).singleElement().satisfies(e -> assertThat(e.message())
                .contains("is 52.4 MB, but a run config is at most 1024 kB: is it the right file?"));
    }

    @Test
    void thousandsOfProblemsAreCountedNotAllListed(@TempDir Path dir) {
        StringBuilder json = new StringBuilder("{\"name\": \"x\", \"model\": {\"type\": \"mlp\"}, \"data\": {\"train\": {\"type\": \"synthetic\"}},"
                + " \"stages\": [{\"epochs\": 1}]");
        for (int i = 0; i < 5000; i++) {
            json.append(", \"unknown").append(i).append("\": ").append(i);
        }
        json.append('}');

        List<ConfigProblem> problems = ConfigParser.parse(json.toString(), dir).problems();

        assertThat(problems).hasSize(Problems.MAX_SHOWN + 1);
        assertThat(problems.get(0).message()).contains("unknown key \"unknown0\"");
        assertThat(problems.get(Problems.MAX_SHOWN).message()).contains("… and 4900 more problem(s) (4900 error(s), 0 warning(s))");
    }
}
