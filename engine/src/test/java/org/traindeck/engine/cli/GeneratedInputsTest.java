package org.traindeck.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded hostile inputs through the CLI in a JVM of its own with a 512 MiB heap: two-node layer graphs of every node
 * type after every other, drawn from the schema, validated and (those that validate) trained; NumPy files whose headers
 * lie. Each must end in a result or a located refusal, never a stack trace or an unexplained failure. The default is a
 * bounded sample for {@code mvn verify}; {@code -Dtraindeck.generated=all} tries every pair and more files (the long
 * mode, see docs/testing.md).
 */
class GeneratedInputsTest {

    @Test
    void everyGeneratedInputEndsInAResultOrALocatedRefusal(@TempDir Path dir) throws Exception {
        boolean all = "all".equals(System.getProperty("traindeck.generated"));
        long seed = Long.getLong("traindeck.generated.seed", 35);
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m",
                "-cp",
                System.getProperty("java.class.path")));
        for (String property :
                List.of("org.bytedeco.javacpp.platform.extension", "org.deeplearning4j.resources.directory")) {
            if (System.getProperty(property) != null) {
                command.add("-D" + property + "=" + System.getProperty(property));
            }
        }
        command.addAll(List.of(
                GeneratedInputsRun.class.getName(),
                Long.toString(seed),
                all ? "100000" : "90",
                all ? "400" : "12",
                all ? "2000" : "150",
                dir.toString()));
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("out.txt").toFile());
        pb.environment().put("OMP_NUM_THREADS", "1");
        Process p = pb.start();
        boolean ended = p.waitFor(all ? 240 : 20, TimeUnit.MINUTES);
        if (!ended) {
            p.destroyForcibly();
        }
        String out = Files.readString(dir.resolve("out.txt"), StandardCharsets.UTF_8);
        assertThat(ended).as("the generated inputs' run ended").isTrue();
        assertThat(p.exitValue()).as(tail(out)).isZero();
        assertThat(out.lines().filter(l -> l.startsWith("CRASH ")).toList())
                .as("seed " + seed)
                .isEmpty();
        assertThat(out)
                .as(tail(out))
                .containsPattern("cases \\d+ graphs \\(\\d+ valid, [1-9]\\d* trained\\), \\d+ NumPy files; 0 crash");
    }

    private static String tail(String out) throws IOException {
        return out.length() > 3000 ? out.substring(out.length() - 3000) : out;
    }
}
