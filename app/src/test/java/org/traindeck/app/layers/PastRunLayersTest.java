package org.traindeck.app.layers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.api.PastRun;
import org.traindeck.engine.events.LayerMetrics;
import org.traindeck.engine.events.LayerMetrics.Figure;

/**
 * A finished run's per-layer figures as the app gets them: read by the engine from the run folder's metrics.jsonl
 * (reduced as every past run is) and handed to the Layers view's model as the dashboard hands a past run's history.
 */
class PastRunLayersTest {

    @Test
    void aPastRunsLayerFiguresFillTheRowsAndItsSpikeSurvivesTheReading(@TempDir Path runDir) throws IOException {
        String[] layers = {"stem/conv", "blocks/0/attn", "head"};
        long steps = 6000;
        try (Writer out = Files.newBufferedWriter(runDir.resolve("metrics.jsonl"))) {
            for (long step = 0; step < steps; step++) {
                for (String layer : layers) {
                    for (Figure f : Figure.values()) {
                        double v = f == Figure.UPDATE_RATIO
                                ? (layer.equals("head") && step == 4321 ? 0.9 : 1e-3)
                                : step * 1e-3;
                        out.write(line(step, LayerMetrics.name(layer, f), v));
                    }
                }
            }
            out.write(String.format(
                    Locale.ROOT,
                    "{\"time\":1700000000.000,\"elapsed\":1.0,\"stage\":\"main\",\"stageIndex\":0,"
                            + "\"epoch\":0,\"step\":5000,\"event\":\"WARNING\",\"message\":\"layer 'head': the update ratio has stayed"
                            + " above 0.1\"}%n"));
        }

        PastRun past = Engine.local().pastRuns().open(runDir);
        LayersViewModel model = new LayersViewModel();
        past.history().forEach(model::accept);

        assertThat(model.rows()).extracting(LayerRow::node).containsExactly(layers);
        LayerRow head = model.find("head");
        assertThat(head.warning()).contains("layer 'head'");
        assertThat(model.find("stem/conv").warning()).isNull();
        assertThat(head.value(Figure.PARAM_NORM))
                .as("the latest figure the reading kept")
                .isCloseTo(steps * 1e-3, within(0.01));
        UpdateRatioGrid grid = model.grid();
        assertThat(grid.columns()).isLessThanOrEqualTo(LayersViewModel.COLUMNS);
        int column = (int) ((4321 - grid.columnStart(0)) / grid.stepsPerColumn());
        assertThat(grid.extreme(head.index(), column, column + 1)).isCloseTo(0.9, within(1e-6));
        assertThat(grid.extreme(model.find("blocks/0/attn").index(), column, column + 1))
                .isCloseTo(1e-3, within(1e-9));
    }

    private static String line(long step, String name, double value) {
        return String.format(
                Locale.ROOT,
                "{\"time\":%.3f,\"elapsed\":%.3f,\"stage\":\"main\",\"stageIndex\":0,\"epoch\":0,"
                        + "\"step\":%d,\"name\":\"%s\",\"value\":%s}%n",
                1_700_000_000 + step * 0.05,
                step * 0.05,
                step,
                name,
                value);
    }
}
