package org.traindeck.app.charts;

import java.awt.Color;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.plot.XYPlot;

/** A chart's background, grid and text in Primer's colours, so the charts sit in the AtlantaFX theme. */
final class ChartTheme {

    private ChartTheme() {}

    /** The theme's text colour: titles, axes, legends and the stage boundaries' names. */
    static Color text(boolean dark) {
        return dark ? new Color(0xc9d1d9) : new Color(0x24292f);
    }

    static void apply(JFreeChart chart, XYPlot plot, boolean dark) {
        Color background = ChartPalette.background(dark);
        Color text = text(dark);
        Color grid = dark ? new Color(0x30363d) : new Color(0xd0d7de);
        chart.setBackgroundPaint(background);
        chart.getTitle().setPaint(text);
        if (chart.getLegend() != null) {
            chart.getLegend().setBackgroundPaint(background);
            chart.getLegend().setItemPaint(text);
        }
        plot.setBackgroundPaint(background);
        plot.setDomainGridlinePaint(grid);
        plot.setRangeGridlinePaint(grid);
        for (ValueAxis a : new ValueAxis[] {plot.getDomainAxis(), plot.getRangeAxis()}) {
            a.setLabelPaint(text);
            a.setTickLabelPaint(text);
            a.setTickLabelFont(a.getTickLabelFont().deriveFont(12f));
            a.setLabelFont(a.getLabelFont().deriveFont(12f));
        }
    }
}
