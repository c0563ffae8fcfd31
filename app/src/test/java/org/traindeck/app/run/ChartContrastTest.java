package org.traindeck.app.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import java.awt.Color;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.traindeck.app.charts.ChartPalette;
import org.traindeck.app.charts.LiveChart;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.MetricNames;
import org.traindeck.engine.events.TelemetryEvent;
import org.traindeck.engine.events.TelemetryNames;

/** Every series the dashboard draws stands out from the chart's background by at least 3:1 (WCAG), in both themes. */
@ExtendWith(ApplicationExtension.class)
class ChartContrastTest {

    private Dashboard dashboard;

    @Start
    void start(Stage stage) {
        dashboard = new Dashboard();
    }

    private static MetricEvent metric(String name, int stage, long step, double value, String device) {
        return new MetricEvent("r", "s" + stage, stage, 0, step, System.currentTimeMillis(), step, name, value, device);
    }

    @Test
    void everySeriesHasAtLeastThreeToOneContrastInBothThemes(FxRobot robot) {
        long now = System.currentTimeMillis();
        for (long step = 1; step <= 5; step++) {
            for (int stage = 0; stage < 8; stage++) {
                dashboard.offer(metric(MetricNames.TRAIN_LOSS, stage, step, 1.0 / step, null));
                dashboard.offer(metric(MetricNames.VAL_LOSS, stage, step, 1.2 / step, null));
                dashboard.offer(metric(MetricNames.VAL_ACCURACY, stage, step, 0.1 * step, null));
                dashboard.offer(metric(MetricNames.VAL_PROJECTION_ERROR, stage, step, 0.3 / step, null));
            }
            dashboard.offer(metric(MetricNames.LR, 0, step, 0.01, null));
            dashboard.offer(metric(MetricNames.THROUGHPUT, 0, step, 100, null));
            dashboard.offer(metric(MetricNames.THROUGHPUT, 0, step, 50, "gpu:0"));
            dashboard.offer(metric(MetricNames.THROUGHPUT, 0, step, 50, "gpu:1"));
            dashboard.offer(metric(MetricNames.SCALING_EFFICIENCY, 0, step, 0.9, null));
            long wall = now + step * 1000;
            dashboard.offer(
                    TelemetryEvent.figure(wall, TelemetryNames.CPU_PREFIX + TelemetryNames.HEAP_USED_MIB, "cpu", 300));
            dashboard.offer(
                    TelemetryEvent.figure(wall, TelemetryNames.CPU_PREFIX + TelemetryNames.OFFHEAP_MIB, "cpu", 200));
            dashboard.offer(TelemetryEvent.figure(
                    wall, TelemetryNames.GPU_PREFIX + "0/" + TelemetryNames.MEMORY_USED_MIB, "gpu:0", 900));
        }
        List<String> tooFaint = new ArrayList<>();
        int checked = 0;
        for (boolean dark : new boolean[] {false, true}) {
            robot.interact(() -> {
                dashboard.drain(Integer.MAX_VALUE);
                dashboard.setDark(dark);
                dashboard.refreshCharts();
            });
            for (LiveChart chart : dashboard.charts()) {
                for (String key : chart.seriesKeys()) {
                    Color c = (Color) chart.drawnPaint(key);
                    double ratio = ChartPalette.contrast(c, ChartPalette.background(dark));
                    checked++;
                    if (ratio < 3.0) {
                        tooFaint.add(String.format(
                                Locale.ROOT,
                                "%s theme, %s / %s: #%06x is %.2f:1",
                                dark ? "dark" : "light",
                                chart.getId(),
                                key,
                                c.getRGB() & 0xffffff,
                                ratio));
                    }
                }
            }
        }
        assertThat(checked).as("series checked").isGreaterThan(30);
        assertThat(tooFaint).isEmpty();
    }

    @Test
    void theContrastRatioIsWcags() {
        assertThat(ChartPalette.contrast(Color.BLACK, Color.WHITE)).isCloseTo(21.0, offset(1e-9));
        assertThat(ChartPalette.contrast(new Color(0x777777), Color.WHITE)).isCloseTo(4.48, offset(0.01));
    }
}
