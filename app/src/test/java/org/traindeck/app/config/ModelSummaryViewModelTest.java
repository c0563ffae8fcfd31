package org.traindeck.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.app.FxWait.onFx;
import static org.traindeck.app.FxWait.waitUntil;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.framework.junit5.ApplicationExtension;
import org.traindeck.app.tasks.QueuedTaskExecutor;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.api.ModelOverview;

/** The model table's state, with the real engine's summaries run when the test says (a queued executor). */
@ExtendWith(ApplicationExtension.class)
class ModelSummaryViewModelTest {

    private static final String GRAPH = """
            {"name": "g", "model": {"type": "graph", "layers": [
              {"name": "conv1", "type": "conv2d", "filters": 4, "kernel": 3, "activation": "relu"},
              {"name": "pool", "type": "maxPool2d", "size": %d},
              {"name": "fc", "type": "dense", "units": %d, "activation": "relu"}]},
             "data": {"train": {"type": "synthetic", "samples": 16, "imageShape": [8, 8, 1], "numClasses": 2}},
             "stages": [{"epochs": 1, "batchSize": 8}]}
            """;

    private static final Engine ENGINE = Engine.local();

    @TempDir
    Path dir;

    private ConfigDocument document;
    private final QueuedTaskExecutor tasks = new QueuedTaskExecutor();
    private final List<String> summarized = new ArrayList<>();
    private ModelSummaryViewModel model;

    private ModelSummaryViewModel model() {
        document = new ConfigDocument(dir);
        model = new ModelSummaryViewModel(
                document,
                (text, base) -> {
                    summarized.add(text);
                    return ENGINE.summarize(text, base);
                },
                tasks);
        return model;
    }

    @AfterEach
    void tearDown() {
        document.shutdown();
    }

    private void type(String text) {
        document.textProperty().set(text);
    }

    @Test
    void aGraphShowsItsNodesShapesAndTotals() {
        model();
        type(GRAPH.formatted(2, 16));
        model.refresh();
        assertThat(model.workingProperty().get()).isTrue();
        assertThat(model.nodes())
                .as("nothing is shown before the background work is done")
                .isEmpty();

        tasks.runAll();

        assertThat(model.workingProperty().get()).isFalse();
        assertThat(model.nodes())
                .extracting(ModelOverview.Node::name)
                .containsExactly("input", "conv1", "pool", "fc", "output");
        assertThat(model.nodes())
                .extracting(ModelOverview.Node::outputShape)
                .containsExactly("[8, 8, 1]", "[8, 8, 4]", "[4, 4, 4]", "[16]", "[2]");
        assertThat(model.nodes()).allSatisfy(n -> assertThat(n.problem()).isNull());
        long sum =
                model.nodes().stream().mapToLong(ModelOverview.Node::parameters).sum();
        assertThat(model.totalsProperty().get()).isEqualTo(String.format("total: %,d parameters", sum));
        assertThat(model.fitProperty().get())
                .startsWith("training memory per device: ")
                .contains("cpu: ");
        assertThat(model.problemsProperty().get()).isEmpty();
    }

    @Test
    void onlyTheNewestTextIsSummarizedAndTheSameTextIsNotAskedTwice() {
        model();
        type(GRAPH.formatted(2, 16));
        model.refresh();
        type(GRAPH.formatted(2, 32));
        model.refresh();
        model.refresh();

        tasks.runAll();

        assertThat(summarized)
                .as("the first text changed before its turn came")
                .containsExactly(GRAPH.formatted(2, 32));
        assertThat(model.nodes())
                .filteredOn(n -> n.name().equals("fc"))
                .singleElement()
                .satisfies(n -> assertThat(n.outputShape()).isEqualTo("[32]"));
        model.refresh();
        assertThat(tasks.pending()).isZero();
    }

    @Test
    void aShapeErrorIsOnItsNode() {
        model();
        type(GRAPH.formatted(16, 16));
        model.refresh();
        tasks.runAll();

        assertThat(model.nodes()).extracting(ModelOverview.Node::name).containsExactly("conv1", "pool", "fc");
        ModelOverview.Node pool = model.nodes().get(1);
        assertThat(pool.problem()).contains("'pool'", "(line 3, column");
        assertThat(model.nodes().get(0).problem()).isNull();
        assertThat(model.totalsProperty().get())
                .isEqualTo("The model does not build: 1 node(s) with a problem, marked in the table.");
        assertThat(model.fitProperty().get()).isEmpty();
        assertThat(model.problemsProperty().get()).isEqualTo("✖ pool: " + pool.problem());
    }

    /** A wrong value is the config's problem, said once by the validation: the model itself is fine. */
    @Test
    void aNegativeLearningRateIsNotAModelThatDoesNotBuild() {
        model();
        type(GRAPH.formatted(2, 16)
                .replace("\"batchSize\": 8}", "\"batchSize\": 8, \"optimizer\": {\"learningRate\": -0.01}}"));
        model.refresh();
        tasks.runAll();

        assertThat(model.totalsProperty().get()).doesNotContainIgnoringCase("does not build");
        assertThat(model.problemsProperty().get().lines())
                .singleElement()
                .satisfies(l -> assertThat(l).startsWith("✖ stages[0].optimizer.learningRate: must be > 0"));
    }

    @Test
    void anUnknownLayerTypeLeadsWithTheFix() {
        model();
        type(GRAPH.formatted(2, 16).replace("\"conv2d\"", "\"conv2xd\""));
        model.refresh();
        tasks.runAll();

        assertThat(model.problemsProperty().get().lines().findFirst().orElseThrow())
                .isEqualTo("✖ conv1: unknown layer type 'conv2xd': did you mean 'conv2d'? (line 2, column 29)");
        assertThat(model.problemsProperty().get()).doesNotContain("separableConv2d");
    }

    /** A value typo is the config's problem: never "does not build", the fix first and said once. */
    @Test
    void aValueTypoIsSaidOnceWithItsFixAndNeverAsAModelThatDoesNotBuild() {
        for (String[] typo : new String[][] {
            {"\"conv2d\"", "\"conv2xd\"", "did you mean 'conv2d'?"},
            {"\"activation\": \"relu\"}", "\"activation\": \"reulu\"}", "did you mean 'relu'?"}
        }) {
            model();
            type(GRAPH.formatted(2, 16).replaceFirst(Pattern.quote(typo[0]), typo[1]));
            model.refresh();
            tasks.runAll();

            assertThat(model.totalsProperty().get()).as(typo[1]).doesNotContainIgnoringCase("does not build");
            List<String> lines = model.problemsProperty().get().lines().toList();
            assertThat(lines).as(typo[1]).isNotEmpty().doesNotHaveDuplicates();
            assertThat(lines.get(0)).as(typo[1]).contains(typo[2]);
            assertThat(lines.stream().filter(l -> l.contains(typo[2])).count())
                    .as("the fix is said once: %s", lines)
                    .isEqualTo(1);
            document.shutdown();
        }
    }

    @Test
    void theSummaryIsWorkedOutOnlyWhileTheTableShows() {
        model();
        type(GRAPH.formatted(2, 16));
        model.refresh();
        tasks.runAll();
        type(GRAPH.formatted(2, 8));
        // the edit's validation arrives while the table is hidden: no work
        waitUntil(
                "the edit's validation",
                () -> !document.validatingProperty().get()
                        && document.validationProperty().get() != null
                        && document.validationProperty().get().isValid());
        assertThat(tasks.pending()).isZero();

        onFx(() -> {
            model.showingProperty().set(true);
            return null;
        });
        assertThat(tasks.pending()).isEqualTo(1);
        tasks.runAll();
        assertThat(model.nodes())
                .filteredOn(n -> n.name().equals("fc"))
                .singleElement()
                .satisfies(n -> assertThat(n.outputShape()).isEqualTo("[8]"));
    }

    @Test
    void aFailedSummarySaysWhyAndMayBeAskedAgain() {
        document = new ConfigDocument(dir);
        model = new ModelSummaryViewModel(
                document,
                (text, base) -> {
                    throw new IllegalStateException("no engine");
                },
                tasks);
        type(GRAPH.formatted(2, 16));
        model.refresh();
        tasks.runAll();

        assertThat(model.problemsProperty().get()).isEqualTo("The summary could not be worked out: no engine");
        assertThat(model.workingProperty().get()).isFalse();
        model.refresh();
        assertThat(tasks.pending()).isEqualTo(1);
    }
}
