package org.traindeck.app.layers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.traindeck.app.layers.LayerEvents.histogram;
import static org.traindeck.app.layers.LayerEvents.lifecycle;
import static org.traindeck.app.layers.LayerEvents.metric;

import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.traindeck.engine.events.HistogramEvent;
import org.traindeck.engine.events.LayerMetrics.Figure;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.MetricEvent;

/** The Layers view's model, fed events as the dashboard applies them; no JavaFX. */
class LayersViewModelTest {

    @Test
    void aHundredLayersOverAHundredThousandStepsStayInBoundedColumnsAndKeepEverySpike() {
        LayersViewModel model = new LayersViewModel();
        LayerEvents run = new LayerEvents(100, 1);
        long steps = 100_000;
        Random random = new Random(7);
        // one spike per layer (up, down, or NaN), each at a step of its own
        Map<Long, Integer> spikes = new TreeMap<>();
        while (spikes.size() < 100) {
            spikes.putIfAbsent(1 + (long) (random.nextDouble() * (steps - 2)), spikes.size());
        }
        double[] spikeOf = new double[100];
        for (int i = 0; i < 100; i++) {
            spikeOf[i] = i % 3 == 0 ? 0.8 : i % 3 == 1 ? 1e-9 : Double.NaN;
        }
        for (long step = 0; step < steps; step++) {
            Integer spiked = spikes.get(step);
            for (int i = 0; i < 100; i++) {
                double ratio = spiked != null && spiked == i ? spikeOf[i] : 1e-3 * (1 + 0.2 * Math.sin(step + i));
                model.accept(metric(run.names().get(i), Figure.UPDATE_RATIO, step, ratio));
            }
        }

        UpdateRatioGrid grid = model.grid();
        assertThat(grid.rows()).isEqualTo(100);
        assertThat(grid.columns())
                .isLessThanOrEqualTo(LayersViewModel.COLUMNS)
                .isGreaterThan(LayersViewModel.COLUMNS / 2);
        assertThat(grid.columnStart(grid.columns()))
                .as("the columns cover the run")
                .isGreaterThanOrEqualTo(steps);
        assertThat(grid.memoryBytes()).isEqualTo(100L * 2 * 4 * LayersViewModel.COLUMNS);
        spikes.forEach((step, layer) -> {
            int column = (int) (step / grid.stepsPerColumn());
            double shown = grid.extreme(layer, column, column + 1);
            if (Double.isNaN(spikeOf[layer])) {
                assertThat(shown).as("layer %d's NaN at step %d", layer, step).isNaN();
            } else {
                assertThat(shown)
                        .as("layer %d's spike at step %d", layer, step)
                        .isCloseTo(spikeOf[layer], within(spikeOf[layer] * 1e-6));
            }
            // and it survives a further reduction to 200 pixels, as the heat map draws it
            int pixel = 0;
            while ((pixel + 1) * grid.columns() / 200 <= column) {
                pixel++;
            }
            int from = pixel * grid.columns() / 200;
            int to = (pixel + 1) * grid.columns() / 200;
            assertThat(column).isBetween(from, to - 1);
            double drawn = grid.extreme(layer, from, to);
            if (Double.isNaN(spikeOf[layer])) {
                assertThat(drawn).isNaN();
            } else {
                assertThat(drawn).isEqualTo((float) spikeOf[layer]);
            }
        });
        // a column with no spike shows the healthy band
        int quiet = grid.columns() / 2;
        for (int layer = 0; layer < 100; layer++) {
            if (!spikes.containsValue(layer) || !spikeIn(spikes, layer, grid, quiet)) {
                assertThat(grid.extreme(layer, quiet, quiet + 1)).isBetween(7.9e-4, 1.21e-3);
            }
        }
    }

    private static boolean spikeIn(Map<Long, Integer> spikes, int layer, UpdateRatioGrid grid, int column) {
        return spikes.entrySet().stream()
                .anyMatch(e -> e.getValue() == layer && e.getKey() / grid.stepsPerColumn() == column);
    }

    @Test
    void columnsMergeInPairsKeepingLowsAndHighs() {
        UpdateRatioGrid grid = new UpdateRatioGrid(4);
        int row = grid.addRow();
        double[] values = {1e-3, 5e-2, 2e-4, 1e-3, 3e-3, 1e-5, 1e-3, 1e-3, 7e-1};
        for (int step = 0; step < values.length; step++) {
            grid.add(row, 100 + step, values[step]);
        }
        // 9 steps in 4 columns: 4 steps a column, starting at the first step seen
        assertThat(grid.stepsPerColumn()).isEqualTo(4);
        assertThat(grid.columns()).isEqualTo(3);
        assertThat(grid.columnStart(0)).isEqualTo(100);
        assertThat(grid.low(row, 0)).isCloseTo(2e-4, within(1e-9));
        assertThat(grid.high(row, 0)).isCloseTo(5e-2, within(1e-9));
        assertThat(grid.low(row, 1)).isCloseTo(1e-5, within(1e-12));
        assertThat(grid.extreme(row, 0, 1))
                .as("5e-2 is further from 1e-3 than 2e-4")
                .isCloseTo(5e-2, within(1e-9));
        assertThat(grid.extreme(row, 1, 2)).isCloseTo(1e-5, within(1e-12));
        assertThat(grid.extreme(row, 2, 3)).isCloseTo(0.7, within(1e-6));
        assertThat(grid.isEmpty(row, 3, 4)).isTrue();
    }

    @Test
    void theLogColourScaleRunsFromBlueThroughPaleYellowToRed() {
        assertThat(LogColorScale.argb(1e-6)).isEqualTo(0xff313695);
        assertThat(LogColorScale.argb(1e-9)).as("below the scale").isEqualTo(0xff313695);
        assertThat(LogColorScale.argb(0)).as("a layer that does not move").isEqualTo(0xff313695);
        assertThat(LogColorScale.argb(1e-3)).isEqualTo(0xffffffbf);
        assertThat(LogColorScale.argb(1)).isEqualTo(0xffa50026);
        assertThat(LogColorScale.argb(50)).isEqualTo(0xffa50026);
        assertThat(LogColorScale.argb(Double.NaN)).isEqualTo(LogColorScale.NOT_A_NUMBER);
        assertThat(LogColorScale.position(1e-4)).isCloseTo(2 / 6.0, within(1e-12));
        assertThat(LogColorScale.position(Math.sqrt(1e-3 * 1e-2)))
                .as("half a decade")
                .isCloseTo(3.5 / 6, within(1e-12));
        // each decade gets redder: the red channel never falls and the blue never rises from 1e-3 up
        int before = LogColorScale.argb(1e-3);
        for (double v = 1.2e-3; v < 1; v *= 1.2) {
            int c = LogColorScale.argb(v);
            assertThat(c & 0xff).isLessThanOrEqualTo(before & 0xff);
            before = c;
        }
    }

    @Test
    void eachLayerKeepsItsLatestFiguresAndHistograms() {
        LayersViewModel model = new LayersViewModel();
        model.accept(metric("enc/conv1", Figure.PARAM_NORM, 10, 3.5));
        model.accept(metric("enc/conv1", Figure.PARAM_NORM, 20, 3.75));
        model.accept(metric("enc/conv1", Figure.ACT_ZERO_FRACTION, 20, 0.25));
        model.accept(metric("dec/conv1", Figure.GRAD_NORM, 20, 0.125));
        double[] values = new Random(3).doubles(1000).map(v -> v - 0.5).toArray();
        model.accept(histogram("enc/conv1", HistogramEvent.WEIGHTS, 100, values));
        model.accept(histogram("enc/conv1", HistogramEvent.WEIGHTS, 200, values));
        model.accept(histogram("enc/conv1", HistogramEvent.GRADIENTS, 100, values));
        // a late histogram of an earlier step does not replace the latest
        model.accept(histogram("enc/conv1", HistogramEvent.WEIGHTS, 150, values));
        model.accept(histogram("dec/conv1", HistogramEvent.GRADIENTS, 200, values));

        assertThat(model.rows()).extracting(LayerRow::node).containsExactly("enc/conv1", "dec/conv1");
        LayerRow enc = model.find("enc/conv1");
        assertThat(enc.value(Figure.PARAM_NORM)).isEqualTo(3.75);
        assertThat(enc.value(Figure.ACT_ZERO_FRACTION)).isEqualTo(0.25);
        assertThat(enc.has(Figure.GRAD_NORM)).isFalse();
        assertThat(enc.value(Figure.GRAD_NORM)).isNaN();
        assertThat(enc.step()).isEqualTo(20);
        assertThat(enc.weights().step()).isEqualTo(200);
        assertThat(enc.gradients().step()).isEqualTo(100);
        LayerRow dec = model.find("dec/conv1");
        assertThat(dec.weights()).isNull();
        assertThat(dec.gradients().step()).isEqualTo(200);
    }

    @Test
    void otherMetricsAreNotTakenAndANodeMayHoldSlashes() {
        LayersViewModel model = new LayersViewModel();
        assertThat(model.accept(new MetricEvent("r", "main", 0, 0, 1, 0, 0, "train/loss", 1.0, null)))
                .isFalse();
        assertThat(model.accept(new MetricEvent("r", "main", 0, 0, 1, 0, 0, "layer/x/unknown_figure", 1.0, null)))
                .isFalse();
        assertThat(model.accept(metric("vit/encoder/block11/attn", Figure.UPDATE_RATIO, 5, 2e-3)))
                .isTrue();
        assertThat(model.rows()).extracting(LayerRow::node).containsExactly("vit/encoder/block11/attn");
    }

    @Test
    void aWarningNamingALayerMarksThatRowAndNoOther() {
        LayersViewModel model = new LayersViewModel();
        LayerEvents run = new LayerEvents(10, 2);
        run.figures(0, 100).forEach(model::accept);
        String message = "layer '" + run.tooFast() + "': update ratio above 0.1 for 50 steps; lower its learning rate";
        assertThat(model.accept(lifecycle(LifecycleEvent.Kind.WARNING, 50, message)))
                .isTrue();
        assertThat(model.accept(lifecycle(LifecycleEvent.Kind.WARNING, 50, "the data loader is slow")))
                .isFalse();
        // a warning about a layer not reported yet marks it when it is
        model.accept(lifecycle(LifecycleEvent.Kind.WARNING, 60, "layer 'head': outputs almost all zero"));
        model.accept(metric("head", Figure.ACT_ZERO_FRACTION, 60, 0.99));

        assertThat(model.rows())
                .filteredOn(r -> r.warning() != null)
                .extracting(LayerRow::node)
                .containsExactly(run.tooFast(), "head");
        assertThat(model.find(run.tooFast()).warning()).isEqualTo(message);
    }

    @Test
    void aRewindForgetsTheColumnsAndHistogramsAfterItsStep() {
        LayersViewModel model = new LayersViewModel(8);
        for (long step = 0; step < 8; step++) {
            model.accept(metric("a", Figure.UPDATE_RATIO, step, 1e-3));
        }
        model.accept(histogram("a", HistogramEvent.WEIGHTS, 2, new double[] {1, 2}));
        model.accept(histogram("a", HistogramEvent.WEIGHTS, 6, new double[] {1, 2}));
        model.accept(lifecycle(LifecycleEvent.Kind.REWIND, 4, "rewind"));

        assertThat(model.grid().columns()).isEqualTo(5);
        assertThat(model.grid().isEmpty(0, 5, 8)).isTrue();
        assertThat(model.find("a").weights()).as("step 6 will be trained again").isNull();
        model.accept(metric("a", Figure.UPDATE_RATIO, 5, 0.5));
        assertThat(model.grid().extreme(0, 5, 6)).isEqualTo(0.5);
    }

    @Test
    void clearingForgetsTheRun() {
        LayersViewModel model = new LayersViewModel();
        new LayerEvents(5, 3).figures(0, 10).forEach(model::accept);
        long before = model.version();
        model.clear();
        assertThat(model.rows()).isEmpty();
        assertThat(model.grid().columns()).isZero();
        assertThat(model.version()).isGreaterThan(before);
    }

    @Test
    void histogramBinsSpreadTensorBoardsBucketsEvenlyAndKeepEveryCount() {
        double[] values = new Random(5).doubles(10_000).map(v -> 2 * v - 1).toArray(); // uniform on [-1, 1)
        HistogramEvent h = histogram("a", HistogramEvent.WEIGHTS, 1, values);
        double[] bins = HistogramBins.spread(h, 20);
        assertThat(List.of(h.bucketCounts().length))
                .allSatisfy(n -> assertThat(n).isGreaterThan(1000));
        double total = 0;
        for (double b : bins) {
            total += b;
            // uniform values: about 500 a bin (TensorBoard's 10 % buckets smear a little across bin edges)
            assertThat(b).isBetween(380.0, 620.0);
        }
        assertThat(total).isCloseTo(10_000, within(1e-6));
        assertThat(HistogramBins.mean(h)).isCloseTo(0, within(0.03));
        assertThat(HistogramBins.std(h)).isCloseTo(1 / Math.sqrt(3), within(0.01));
    }

    @Test
    void aHistogramOfEqualValuesIsOneBar() {
        HistogramEvent h = histogram("bias", HistogramEvent.WEIGHTS, 1, new double[] {0, 0, 0});
        double[] bins = HistogramBins.spread(h, 10);
        assertThat(bins[0]).isEqualTo(3);
        assertThat(HistogramBins.std(h)).isZero();
    }
}
