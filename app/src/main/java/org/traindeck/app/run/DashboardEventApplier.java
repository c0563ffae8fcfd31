package org.traindeck.app.run;

import java.util.Locale;
import org.traindeck.app.layers.LayersViewModel;
import org.traindeck.app.predictions.PredictionsViewModel;
import org.traindeck.engine.events.HistogramEvent;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.Metric;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.MetricRoute;
import org.traindeck.engine.events.MetricTable;
import org.traindeck.engine.events.SamplesEvent;
import org.traindeck.engine.events.TelemetryEvent;
import org.traindeck.engine.events.TrainingListener;

/** What each kind of event does to the dashboard's charts, views, status, messages and banner (FX thread). */
final class DashboardEventApplier implements TrainingListener {

    private final RunCharts charts;
    private final LayersViewModel layers;
    private final PredictionsViewModel predictions;
    private final StatusViewModel status;
    private final MessagesViewModel messages;
    private final RunBanner banner;

    DashboardEventApplier(
            RunCharts charts,
            LayersViewModel layers,
            PredictionsViewModel predictions,
            StatusViewModel status,
            MessagesViewModel messages,
            RunBanner banner) {
        this.charts = charts;
        this.layers = layers;
        this.predictions = predictions;
        this.status = status;
        this.messages = messages;
        this.banner = banner;
    }

    @Override
    public void onMetric(MetricEvent m) {
        if (MetricTable.route(m.name()) == MetricRoute.LAYER_FIGURE) {
            layers.accept(m);
        } else {
            metric(m);
        }
    }

    @Override
    public void onHistogram(HistogramEvent h) {
        layers.accept(h);
    }

    @Override
    public void onSamples(SamplesEvent s) {
        predictions.accept(s);
    }

    @Override
    public void onLifecycle(LifecycleEvent l) {
        boolean aboutLayers = layers.accept(l);
        lifecycle(l);
        if (aboutLayers && l.kind() == LifecycleEvent.Kind.WARNING) {
            banner.say(l.message() + " (see the Layers tab)", false);
        }
    }

    @Override
    public void onTelemetry(TelemetryEvent t) {
        switch (t.kind()) {
            case FIGURE -> charts.telemetry(t);
            case STATUS -> messages.add(t.wallTimeMillis(), "devices: " + t.message());
            case PROCESSES -> {}
        }
    }

    private void metric(MetricEvent m) {
        charts.metric(m);
        Metric metric = MetricTable.of(m.name());
        if (metric.shows(MetricRoute.View.EVENT_LOG)) {
            messages.add(
                    m.wallTimeMillis(),
                    String.format(
                            Locale.ROOT,
                            "validation %s after epoch %d of \"%s\"",
                            metric.say(m.value()),
                            m.epoch() + 1,
                            m.stage()));
        } else if (metric.route() == MetricRoute.STEPS_PER_EPOCH) {
            status.stepsPerEpoch((long) m.value());
        }
        status.metric(m);
    }

    private void lifecycle(LifecycleEvent l) {
        charts.lifecycle(l);
        switch (l.kind()) {
            case RUN_FAILED -> banner.say("The run failed: " + l.message(), true);
            case FALLBACK -> banner.say("Fell back: " + l.message(), false);
            // a file the user counts on (metrics, the log, a checkpoint) is no longer being written: say so at once
            case FILE_WRITE_FAILED -> banner.say(l.message(), true);
            default -> {}
        }
        status.lifecycle(l);
        messages.add(
                l.wallTimeMillis(), l.kind().name().toLowerCase(Locale.ROOT).replace('_', ' ') + ": " + l.message());
    }
}
