package org.traindeck.engine.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.events.Metric;
import org.traindeck.engine.events.MetricNames;
import org.traindeck.engine.events.MetricTable;

/**
 * A metric's name is spelled once: in the engine's declarations ({@code MetricNames}, {@code TelemetryNames},
 * {@code LayerMetrics}) and in {@link MetricTable}. Every other production file of the engine, app, bench and cluster
 * names it by its constant, so a view that needs to know something of a metric asks the table instead of comparing
 * spellings.
 */
class MetricNamesTest {

    private static final Set<String> DECLARATIONS =
            Set.of("MetricNames.java", "TelemetryNames.java", "LayerMetrics.java", "MetricTable.java");

    private static final Pattern STRING_LITERAL = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"");

    /** What a metric's name looks like, whether the table holds it or not (a new one spelled inline is caught too). */
    private static final Pattern METRIC_SHAPE = Pattern.compile(
            "(val|val_ema|train|throughput|parallel|time|progress|energy)/[a-z][a-z0-9_]*(/[-a-z0-9_]+)?");

    /** Whether a quoted string is a metric's name: {@code lr} alone is too common a word to tell (a TensorBoard tag). */
    private static boolean isMetricName(String literal) {
        if (METRIC_SHAPE.matcher(literal).matches()) {
            return true;
        }
        return literal.contains("/") && MetricTable.isListed(literal);
    }

    @Test
    void theShapeAndTheTableKnowEveryDeclaredName() {
        assertThat(MetricTable.all())
                .map(Metric::name)
                .filteredOn(n -> !n.contains("*") && !n.equals(MetricNames.LR))
                .isNotEmpty()
                .allSatisfy(n -> assertThat(isMetricName(n)).as(n).isTrue());
        assertThat(isMetricName("val/something_new")).isTrue();
        assertThat(isMetricName("gpu/0/power_w")).isTrue();
        // a chart's series key or a name's prefix is no metric
        assertThat(isMetricName("val/")).isFalse();
        assertThat(isMetricName("train · ")).isFalse();
    }

    @Test
    void noProductionFileOutsideTheDeclarationsAndTheTableSpellsAMetricName() throws IOException {
        List<String> found = new ArrayList<>();
        for (String module : List.of("engine", "app", "bench", "cluster")) {
            Path sources = TestPaths.repoRoot().resolve(module).resolve("src/main/java");
            try (Stream<Path> files = Files.walk(sources)) {
                for (Path file :
                        files.filter(f -> f.toString().endsWith(".java")).toList()) {
                    if (!DECLARATIONS.contains(file.getFileName().toString())) {
                        found.addAll(spelled(file));
                    }
                }
            }
        }
        assertThat(found)
                .as("name the metric by its MetricNames constant, and ask MetricTable what it needs to know of it")
                .isEmpty();
    }

    private static List<String> spelled(Path file) throws IOException {
        List<String> found = new ArrayList<>();
        List<String> lines = Files.readAllLines(file);
        for (int i = 0; i < lines.size(); i++) {
            Matcher literal = STRING_LITERAL.matcher(lines.get(i));
            while (literal.find()) {
                if (isMetricName(literal.group(1))) {
                    found.add(file + ":" + (i + 1) + " spells " + literal.group(1));
                }
            }
        }
        return found;
    }
}
