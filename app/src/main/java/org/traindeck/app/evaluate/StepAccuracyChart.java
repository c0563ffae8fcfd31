package org.traindeck.app.evaluate;

import java.util.Map;
import javafx.scene.chart.BarChart;
import javafx.scene.chart.CategoryAxis;
import javafx.scene.chart.NumberAxis;
import javafx.scene.chart.XYChart;
import org.traindeck.engine.events.MetricNames;

/**
 * A per-step model's accuracy by position in its sequences, as an evaluation measured it: the in-context learning
 * curve of a trajectory model (accuracy rising with the history it has seen). Shown only when the evaluation has it.
 */
final class StepAccuracyChart extends BarChart<String, Number> {

    StepAccuracyChart() {
        super(new CategoryAxis(), new NumberAxis(0, 1, 0.25));
        setId("evaluation-step-accuracy");
        setTitle("Accuracy by position in the sequence");
        setLegendVisible(false);
        setAnimated(false);
        getXAxis().setLabel("steps");
        getYAxis().setLabel("accuracy");
        setPrefHeight(220);
        show(Map.of());
    }

    /** Draws the evaluation's accuracy by position, or hides when it has none. */
    void show(Map<String, Double> figures) {
        XYChart.Series<String, Number> series = new XYChart.Series<>();
        for (Map.Entry<String, Double> f : figures.entrySet()) {
            if (f.getKey().startsWith(MetricNames.VAL_ACCURACY_BY_STEP_PREFIX)) {
                String steps = f.getKey().substring(MetricNames.VAL_ACCURACY_BY_STEP_PREFIX.length());
                series.getData().add(new XYChart.Data<>(steps, f.getValue()));
            }
        }
        getData().setAll(series);
        boolean any = !series.getData().isEmpty();
        setVisible(any);
        setManaged(any);
    }
}
