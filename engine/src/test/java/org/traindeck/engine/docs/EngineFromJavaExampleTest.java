package org.traindeck.engine.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.api.ConfigCheck;
import org.traindeck.engine.api.Configs;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.api.RunHandle;
import org.traindeck.engine.api.runs.RunSummary;
import org.traindeck.engine.config.ValidationResult;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.TrainingListener;

/**
 * The "Using the engine from Java" example of docs/architecture.md compiles against engine.api and trains: its
 * statements are this test's, word for word (the doc's "my-run.json" is the test's file).
 */
class EngineFromJavaExampleTest {

    private static final String BEGIN = "// the example begins";
    private static final String END = "// the example ends";

    @Test
    void theExampleTrainsARunThroughTheApi(@TempDir Path dir) throws IOException {
        Path myRun = dir.resolve("my-run.json");
        Files.writeString(myRun, """
                {"name": "from-java", "outputDir": "runs", "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "samples": 200, "features": 4}, "validationSplit": 0.2},
                 "stages": [{"epochs": 1, "batchSize": 20}]}
                """, StandardCharsets.UTF_8);

        example(myRun);

        List<RunSummary> runs = Engine.local().pastRuns().list(dir.resolve("runs"));
        assertThat(runs)
                .singleElement()
                .satisfies(r -> assertThat(r.status().toString()).isEqualToIgnoringCase("finished"));
    }

    @Test
    void theDocShowsTheseStatements() throws IOException {
        List<String> source = Files.readAllLines(
                TestPaths.repoRoot()
                        .resolve("engine/src/test/java/org/traindeck/engine/docs/EngineFromJavaExampleTest.java"),
                StandardCharsets.UTF_8);
        List<String> tested =
                statements(source.subList(source.indexOf("        " + BEGIN) + 1, source.indexOf("        " + END)));
        MarkdownDocs.Block shown = MarkdownDocs.blocks(TestPaths.repoRoot().resolve("docs/architecture.md")).stream()
                .filter(b -> b.info().equals("java"))
                .findFirst()
                .orElseThrow();
        List<String> documented =
                statements(shown.text()
                                .lines()
                                .filter(l -> !l.startsWith("import "))
                                .toList())
                        .stream()
                        .map(l -> l.replace("Path.of(\"my-run.json\")", "myRun"))
                        .toList();
        // the same code whatever its line breaks (the formatter wraps the test's copy, the doc keeps a reader's)
        assertThat(String.join("", documented).replaceAll("\\s+", ""))
                .isEqualTo(String.join("", tested).replaceAll("\\s+", ""));
    }

    /** The lines with code on them, trimmed, without trailing comments. */
    private static List<String> statements(List<String> lines) {
        return lines.stream()
                .map(l -> l.replaceAll("\\s+//.*$", "").strip())
                .filter(l -> !l.isEmpty() && !l.startsWith("//"))
                .toList();
    }

    private static void example(Path myRun) throws IOException {
        // the example begins
        Engine engine = Engine.local(); // this machine's devices
        ValidationResult parsed = Configs.load(myRun); // every problem, located: parsed.problems()
        ConfigCheck check = engine.check(parsed); // what `traindeck validate` says, model and fit included
        if (!check.ok()) {
            check.checked().problems().forEach(System.err::println);
            return;
        }
        RunHandle run = engine.openRun(parsed); // new run folder, files opened
        run.subscribe(
                new TrainingListener() { // a UI: skips metrics when behind, never slows training
                    @Override
                    public void onTrainingBatch(MetricEvent loss) {
                        System.out.println("step " + loss.step() + ": loss " + loss.value());
                    }

                    @Override
                    public void onEpoch(LifecycleEvent epoch) {
                        System.out.println("epoch " + (epoch.epoch() + 1) + " of stage " + epoch.stage() + " done");
                    }
                });
        run.start(); // trains on a background thread
        // run.requestStop();                                            // stops after the current step, with a
        // checkpoint
        var result = run.completion().join(); // FINISHED, STOPPED, INCOMPLETE or FAILED
        System.out.println(result.status() + " after " + result.steps() + " steps in " + result.runDir());
        // the example ends
    }
}
