package org.traindeck.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.api.Configs;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.api.RunHandle;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.events.MetricNames;
import org.traindeck.engine.train.RunRequest;
import org.traindeck.engine.train.TrainingRun;
import org.traindeck.engine.train.state.StartWork;

/**
 * A Start reads the run's data once and compiles its model once, from the command line and from the app (the
 * engine.api calls the app makes: summaries as the config is edited, then open and start) and from the engine's other
 * starts (the queue, trial processes, the bench), counted where the engine does either.
 */
class OneCompileOneReadPerStartTest {

    private static final String CONFIG = """
            {"name": "once", "seed": 5, "model": {"type": "mlp", "hidden": [8]},
             "data": {"train": {"type": "csv", "path": "rows.csv"}, "validationSplit": 0.25},
             "stages": [{"name": "only", "epochs": 2, "batchSize": 8}]}
            """;

    /** Counts what it is told. */
    static final class Counter implements StartWork {
        final AtomicInteger compiles = new AtomicInteger();
        final AtomicInteger reads = new AtomicInteger();

        @Override
        public void modelCompiled() {
            compiles.incrementAndGet();
        }

        @Override
        public void dataRead() {
            reads.incrementAndGet();
        }
    }

    private static Path config(Path dir) throws IOException {
        StringBuilder rows = new StringBuilder();
        for (int i = 0; i < 48; i++) {
            rows.append(i % 7)
                    .append(',')
                    .append((i * 3) % 5)
                    .append(',')
                    .append(i % 2)
                    .append('\n');
        }
        Files.writeString(dir.resolve("rows.csv"), rows);
        return Files.writeString(dir.resolve("once.json"), CONFIG);
    }

    @Test
    void theCommandLineCompilesTheModelOnceAndReadsTheDataOnce(@TempDir Path dir) throws IOException {
        Path config = config(dir);
        Counter counted = new Counter();
        ByteArrayOutputStream err = new ByteArrayOutputStream();

        int code = new Main(
                        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8),
                        Engine.local().telling(counted))
                .run(new String[] {"train", config.toString(), "--devices", "cpu"});

        assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isEqualTo(Main.OK);
        assertThat(counted.compiles).as("model compilations").hasValue(1);
        assertThat(counted.reads).as("data reads").hasValue(1);
    }

    /**
     * The queue, a sweep's trial process and the bench open their runs where the engine does ({@link TrainingRun#open}):
     * one data read and one compilation there too, and the same training as the engine's.
     */
    @Test
    void aRunOpenedWithoutTheEngineApiReadsOnceCompilesOnceAndTrainsTheSame(@TempDir Path dir) throws Exception {
        RunConfig config = Configs.load(config(dir)).orThrow();
        RunHandle viaEngine = Engine.local().openRun(Configs.revalidate(config.withOutputDir("engine")));
        viaEngine.start();
        assertThat(viaEngine.completion().get(5, TimeUnit.MINUTES).status()).isEqualTo(RunResult.Status.FINISHED);

        Counter counted = new Counter();
        TrainingRun direct =
                TrainingRun.open(RunRequest.of(config.withOutputDir("direct")).telling(counted));
        assertThat(direct.runHere().status()).isEqualTo(RunResult.Status.FINISHED);

        assertThat(counted.compiles).as("model compilations").hasValue(1);
        assertThat(counted.reads).as("data reads").hasValue(1);
        assertThat(losses(viaEngine.runDir())).isNotEmpty().isEqualTo(losses(direct.runDir()));
    }

    private static List<Double> losses(Path runDir) throws IOException {
        ObjectMapper json = new ObjectMapper();
        List<Double> out = new ArrayList<>();
        for (String line : Files.readAllLines(runDir.resolve("metrics.jsonl"))) {
            JsonNode e = json.readTree(line);
            if (MetricNames.TRAIN_LOSS.equals(e.path("name").asText())) {
                out.add(e.get("value").asDouble());
            }
        }
        return out;
    }

    @Test
    void theAppsStartCompilesTheModelOnceAndReadsTheDataOnce(@TempDir Path dir) throws Exception {
        String text = Files.readString(config(dir));
        Counter counted = new Counter();
        Engine engine = Engine.local().telling(counted);
        // the app's summary follows each edit of the config (ModelSummaryViewModel), before Start
        engine.summarize(text, dir);
        engine.summarize(text.replace("[8]", "[16]"), dir);
        engine.summarize(text, dir);
        int compilesBefore = counted.compiles.get();
        int readsBefore = counted.reads.get();

        // what RunController.start and launch call
        RunHandle run = engine.openRun(Configs.parse(text, dir));
        run.start();
        RunResult result = run.completion().get(5, TimeUnit.MINUTES);

        assertThat(result.status()).as(result.message()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(readsBefore).as("the summaries read the data once").isEqualTo(1);
        assertThat(counted.compiles.get() - compilesBefore)
                .as("model compilations of the Start")
                .isEqualTo(1);
        assertThat(counted.reads.get() - readsBefore)
                .as("data reads of the Start")
                .isEqualTo(1);
    }
}
