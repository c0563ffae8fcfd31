package org.traindeck.engine.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.api.Configs;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.api.RunHandle;
import org.traindeck.engine.api.runs.RunResult;

/**
 * Every metric name the engine publishes has its place in {@link MetricTable}: drawn somewhere, or listed as kept in the
 * run's files only (issue 34). A new name in {@code MetricNames} or a new kind of per-layer or device figure fails here
 * until the table says where it goes and how it is written.
 */
class MetricTableTest {

    @TempDir
    Path dir;

    /** MetricNames' constants that are whole names (not prefixes). */
    private static List<String> metricNames() throws IllegalAccessException {
        List<String> names = new ArrayList<>();
        for (Field f : MetricNames.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers())
                    && f.getType() == String.class
                    && !f.getName().endsWith("_PREFIX")) {
                names.add((String) f.get(null));
            }
        }
        return names;
    }

    @Test
    void everyNameTheEngineDeclaresIsInTheTable() throws Exception {
        List<String> names = new ArrayList<>(metricNames());
        assertThat(names).contains(MetricNames.TRAIN_LOSS, MetricNames.STEPS_PER_EPOCH, MetricNames.VAL_R2);
        // the weight average is validated as the weights are; top-5 and R² are evaluate's only
        metricNames().stream()
                .filter(n -> n.startsWith("val/"))
                .filter(n -> !n.equals(MetricNames.VAL_TOP5_ACCURACY) && !n.equals(MetricNames.VAL_R2))
                // a diffusion model's sampling uses the average when the stage keeps one: no val_ema/ twin
                .filter(n -> !n.equals(MetricNames.VAL_PROJECTION_ERROR))
                .map(MetricNames::ofEma)
                .forEach(names::add);
        for (LayerMetrics.Figure f : LayerMetrics.Figure.values()) {
            names.add(LayerMetrics.name("enc/block03/conv", f));
        }
        names.add(MetricNames.ENERGY_PREFIX + "gpu0_wh");
        TelemetryNames.GPU_FIGURES.forEach(f -> names.add(TelemetryNames.GPU_PREFIX + "1/" + f));
        TelemetryNames.CPU_FIGURES.forEach(f -> names.add(TelemetryNames.CPU_PREFIX + f));

        assertThat(names)
                .allSatisfy(n -> assertThat(MetricTable.isListed(n))
                        .as("%s is in MetricTable", n)
                        .isTrue());
        assertThat(MetricTable.isListed("val/something_new")).isFalse();
    }

    @Test
    void theTableSendsEachToItsView() {
        assertThat(MetricTable.route(MetricNames.TRAIN_LOSS).views()).contains(MetricRoute.View.LOSS_CHART);
        assertThat(MetricTable.route(MetricNames.VAL_EMA_LOSS)).isEqualTo(MetricRoute.EMA_VALIDATION_LOSS);
        assertThat(MetricTable.route(MetricNames.ofEma(MetricNames.VAL_MEAN_IOU)))
                .isEqualTo(MetricRoute.TASK_METRIC);
        assertThat(MetricTable.route(LayerMetrics.name("a/b", LayerMetrics.Figure.UPDATE_RATIO)))
                .isEqualTo(MetricRoute.LAYER_FIGURE);
        assertThat(MetricTable.route(TelemetryNames.GPU_PREFIX + "3/" + TelemetryNames.MEMORY_USED_MIB)
                        .views())
                .contains(MetricRoute.View.MEMORY_CHART, MetricRoute.View.DEVICES_TAB);
        assertThat(MetricTable.route(TelemetryNames.GPU_PREFIX + "3/" + TelemetryNames.POWER_W))
                .isEqualTo(MetricRoute.DEVICE_FIGURE);
        assertThat(MetricTable.route(MetricNames.GRAD_NORM).views()).isEmpty();
        // every task metric and its weight average's twin has its words, unit and format for the validation chart
        assertThat(MetricTable.taskMetrics()).isNotEmpty().allSatisfy(t -> {
            Metric twin = MetricTable.of(MetricNames.ofEma(t.name()));
            assertThat(twin.ema()).as(twin.name()).isTrue();
            assertThat(twin.route()).isEqualTo(MetricRoute.TASK_METRIC);
            assertThat(List.of(t, twin)).allSatisfy(m -> {
                assertThat(m.shows(MetricRoute.View.VALIDATION_CHART))
                        .as(m.name())
                        .isTrue();
                assertThat(m.label()).as(m.name()).isNotBlank();
                assertThat(m.unit()).as(m.name()).isNotEqualTo(Metric.Unit.NONE);
                assertThat(m.brief()).as(m.name()).startsWith("val_");
            });
        });
    }

    @Test
    void theTableSaysWhichWayIsBetterAndHowAValueIsWritten() {
        assertThat(MetricTable.of(MetricNames.VAL_MEAN_IOU).higherIsBetter()).isTrue();
        assertThat(MetricTable.of(MetricNames.ofEma(MetricNames.VAL_PSNR)).higherIsBetter())
                .isTrue();
        assertThat(MetricTable.of(MetricNames.VAL_PERPLEXITY).higherIsBetter()).isFalse();
        assertThat(MetricTable.of(MetricNames.VAL_LOSS).higherIsBetter()).isFalse();
        assertThat(MetricTable.of(MetricNames.VAL_ACCURACY).say(0.9234)).isEqualTo("accuracy 92.34 %");
        assertThat(MetricTable.of(MetricNames.VAL_PSNR).format().write(30.844)).isEqualTo("30.84 dB");
        // the summary shows the task's headline figures, not the ones beside them
        assertThat(MetricTable.of(MetricNames.VAL_MEAN_IOU).shows(MetricRoute.View.RUN_SUMMARY))
                .isTrue();
        assertThat(MetricTable.of(MetricNames.VAL_PIXEL_ACCURACY).shows(MetricRoute.View.RUN_SUMMARY))
                .isFalse();
        // a run's own task metric is the first of these it publishes: a segmentation's mean IoU, not pixel accuracy
        List<String> order =
                MetricTable.taskMetrics().stream().map(Metric::name).toList();
        assertThat(order.indexOf(MetricNames.VAL_MEAN_IOU)).isLessThan(order.indexOf(MetricNames.VAL_PIXEL_ACCURACY));
        assertThat(order.indexOf(MetricNames.VAL_PSNR)).isLessThan(order.indexOf(MetricNames.VAL_MSE));
    }

    /** What a real run publishes, per-layer figures and the weight average's validation included. */
    @Test
    void everyNameARealRunPublishesIsInTheTable() throws Exception {
        String config = """
                {"name": "routes", "outputDir": "%s", "seed": 1, "devices": "cpu",
                 "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "samples": 120, "features": 4, "numClasses": 3},
                          "validationSplit": 0.25},
                 "logging": {"layers": {"everySteps": 1, "histogramsEverySteps": 2}},
                 "stages": [{"name": "main", "epochs": 2, "batchSize": 30,
                             "optimizer": {"type": "adam", "learningRate": 0.01}, "ema": {"decay": 0.9}}]}
                """.formatted(dir.resolve("runs").toString().replace("\\", "/"));
        RunHandle run = Engine.local().openRun(Configs.parse(config, dir).orThrow());
        Set<String> published = ConcurrentHashMap.newKeySet();
        run.subscribeLossless(e -> {
            if (e instanceof MetricEvent m) {
                published.add(m.name());
            }
        });
        run.start();
        RunResult result = run.completion().get(3, TimeUnit.MINUTES);
        assertThat(result.status()).as(result.message()).isEqualTo(RunResult.Status.FINISHED);

        assertThat(published)
                .contains(MetricNames.TRAIN_LOSS, MetricNames.VAL_ACCURACY, MetricNames.STEPS_PER_EPOCH)
                .anySatisfy(n -> assertThat(n).startsWith(LayerMetrics.PREFIX))
                .allSatisfy(n -> assertThat(MetricTable.isListed(n))
                        .as("%s is in MetricTable", n)
                        .isTrue());
    }
}
