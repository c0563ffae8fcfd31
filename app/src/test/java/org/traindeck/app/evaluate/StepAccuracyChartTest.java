package org.traindeck.app.evaluate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.app.FxWait.onFx;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javafx.scene.Scene;
import javafx.scene.chart.XYChart;
import javafx.scene.layout.StackPane;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/** An evaluation of a per-step model draws its accuracy by position; any other evaluation shows no such chart. */
@ExtendWith(ApplicationExtension.class)
class StepAccuracyChartTest {

    private StepAccuracyChart chart;

    @Start
    void start(Stage stage) {
        chart = new StepAccuracyChart();
        stage.setScene(new Scene(new StackPane(chart), 600, 300));
        stage.show();
    }

    @Test
    void theAccuracyByPositionIsDrawnInOrderAndOtherFiguresAreNot() {
        Map<String, Double> figures = new LinkedHashMap<>();
        figures.put("val/loss", 0.4);
        figures.put("val/accuracy", 0.8);
        figures.put("val/accuracy_by_step/1-4", 0.3);
        figures.put("val/accuracy_by_step/5-8", 0.6);
        figures.put("val/accuracy_by_step/9-16", 0.95);

        onFx(() -> {
            chart.show(figures);
            return null;
        });

        List<XYChart.Data<String, Number>> bars =
                onFx(() -> List.copyOf(chart.getData().get(0).getData()));
        assertThat(bars).extracting(XYChart.Data::getXValue).containsExactly("1-4", "5-8", "9-16");
        assertThat(bars).extracting(d -> d.getYValue().doubleValue()).containsExactly(0.3, 0.6, 0.95);
        assertThat(onFx(chart::isVisible)).isTrue();
    }

    @Test
    void anEvaluationWithoutPositionsHidesTheChart() {
        onFx(() -> {
            chart.show(Map.of("val/loss", 0.4, "val/accuracy", 0.8));
            return null;
        });

        assertThat(onFx(chart::isVisible)).isFalse();
        assertThat(onFx(chart::isManaged)).isFalse();
    }
}
