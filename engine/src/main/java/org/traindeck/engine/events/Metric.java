package org.traindeck.engine.events;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import org.traindeck.engine.events.MetricRoute.View;

/**
 * One metric, or a family of them by name pattern, as every view shows it; {@link MetricTable} holds one for each name
 * the engine publishes.
 *
 * @param name           the metric's name, or a pattern whose one {@code *} stands for a node, device or index
 * @param route          how the window handles it
 * @param views          where it is shown: its route's views, or fewer
 * @param label          the words legends, the event log and the summary use ("mean IoU")
 * @param brief          the label of the CLI's epoch line ("val_mean_iou"; empty: the value alone)
 * @param unit           what its values are: one chart holds one unit
 * @param higherIsBetter which way its best value lies (checkpoints, sweeps, the summary's and Runs tab's best)
 * @param format         how one value is written
 * @param dashed         drawn dashed: the second figure of a task in the same unit (mean IoU beside pixel accuracy)
 * @param ema            a stage's weight average's twin of a validation metric ({@code val_ema/...})
 */
public record Metric(
        String name,
        MetricRoute route,
        Set<View> views,
        String label,
        String brief,
        Unit unit,
        boolean higherIsBetter,
        Format format,
        boolean dashed,
        boolean ema) {

    public Metric {
        views = Set.copyOf(views);
    }

    /** What a metric's values are; a chart of errors gives way to a more telling unit the run also publishes. */
    public enum Unit {
        NONE(""),
        FRACTION("fraction"),
        DECIBEL("dB"),
        PERPLEXITY("perplexity"),
        ERROR("error");

        private final String axisLabel;

        Unit(String axisLabel) {
            this.axisLabel = axisLabel;
        }

        public String axisLabel() {
            return axisLabel;
        }
    }

    /** A value as people read it: scaled (a fraction as a percentage) and written by a {@link String#format} pattern. */
    public record Format(double scale, String pattern) {
        public static final Format GENERAL = new Format(1, "%.4g");
        public static final Format PERCENT = new Format(100, "%.2f %%");

        public static Format of(String pattern) {
            return new Format(1, pattern);
        }

        public String write(double value) {
            return String.format(Locale.ROOT, pattern, scale * value);
        }
    }

    /** A metric of the route, shown in all its views, in words its name. */
    static Metric of(String name, MetricRoute route) {
        return new Metric(name, route, route.views(), name, "", Unit.NONE, false, Format.GENERAL, false, false);
    }

    public boolean shows(View view) {
        return views.contains(view);
    }

    /** Whether the name matches: the same, or the pattern's parts around its {@code *}. */
    public boolean matches(String metricName) {
        int star = name.indexOf('*');
        if (star < 0) {
            return name.equals(metricName);
        }
        String head = name.substring(0, star);
        String tail = name.substring(star + 1);
        return metricName.length() > head.length() + tail.length()
                && metricName.startsWith(head)
                && metricName.endsWith(tail);
    }

    /** The key of its curve on a chart: accuracy, ema_accuracy, mean_iou. */
    public String seriesKey() {
        return (ema ? "ema_" : "") + name.substring(name.indexOf('/') + 1);
    }

    /** A value with its label, as the summary, the event log and the CLI say it. */
    public String say(double value) {
        return label + " " + format.write(value);
    }

    /** The weight average's twin of a validation metric: val/accuracy → val_ema/accuracy, drawn beside it. */
    Metric emaTwin() {
        Set<View> twinViews = EnumSet.noneOf(View.class);
        twinViews.addAll(views);
        twinViews.removeAll(Set.of(View.RUN_SUMMARY, View.OVERLAYS, View.EVENT_LOG));
        return new Metric(
                MetricNames.ofEma(name),
                route,
                twinViews,
                label + " (EMA)",
                brief.isEmpty() ? brief : "val_ema_" + brief.substring(brief.indexOf('_') + 1),
                unit,
                higherIsBetter,
                format,
                dashed,
                true);
    }

    Metric labelled(String words, String epochLineLabel) {
        return new Metric(name, route, views, words, epochLineLabel, unit, higherIsBetter, format, dashed, ema);
    }

    Metric in(Unit of, Format written) {
        return new Metric(name, route, views, label, brief, of, higherIsBetter, written, dashed, ema);
    }

    Metric betterHigher() {
        return new Metric(name, route, views, label, brief, unit, true, format, dashed, ema);
    }

    Metric drawnDashed() {
        return new Metric(name, route, views, label, brief, unit, higherIsBetter, format, true, ema);
    }

    /** Shown in its route's views and these too ({@code plus}) or less these ({@code less}). */
    Metric alsoIn(View... plus) {
        Set<View> v = EnumSet.noneOf(View.class);
        v.addAll(views);
        v.addAll(Set.of(plus));
        return new Metric(name, route, v, label, brief, unit, higherIsBetter, format, dashed, ema);
    }

    Metric notIn(View... less) {
        Set<View> v = EnumSet.noneOf(View.class);
        v.addAll(views);
        v.removeAll(Set.of(less));
        return new Metric(name, route, v, label, brief, unit, higherIsBetter, format, dashed, ema);
    }
}
