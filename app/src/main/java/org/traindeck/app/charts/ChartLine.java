package org.traindeck.app.charts;

import java.awt.Color;
import org.jfree.data.xy.XYSeries;

/** One series of a {@link LiveChart}: its full data, its smoothed copy, and the two lines it is drawn as. */
final class ChartLine {

    final String key;
    final String label;
    final Color color;
    final boolean dashed;
    final SeriesBuffer data = new SeriesBuffer();
    final XYSeries raw;
    final XYSeries smooth;
    /** The debiased EMA of data, extended as points arrive (its state: the running average and its count). */
    final SeriesBuffer smoothed = new SeriesBuffer();

    long smoothedRewrites = -1;
    Smoothing ema = new Smoothing(-1);
    long drawnVersion = -1;

    ChartLine(String key, String label, Color color, boolean dashed) {
        this.key = key;
        this.label = label;
        this.color = color;
        this.dashed = dashed;
        this.raw = new XYSeries(label + " (raw)", false, true);
        this.smooth = new XYSeries(label, false, true);
    }

    /** Extends (or, after a rewind or a new weight, rebuilds) the smoothed series. */
    void extendSmoothed(double weight) {
        if (smoothedRewrites != data.rewrites() || ema.weight() != weight) {
            smoothed.clear();
            ema = new Smoothing(weight);
            smoothedRewrites = data.rewrites();
        }
        for (int i = smoothed.size(); i < data.size(); i++) {
            smoothed.add(data.step(i), data.time(i), ema.next(data.value(i)));
        }
    }
}
