package org.traindeck.engine.train.health;

import java.util.List;

/** What one logged step measured inside the model: figures per node, first to last, and histograms when asked. */
public record LayerSnapshot(List<LayerFigures> figures, List<LayerHistogram> histograms) {

    public LayerSnapshot {
        figures = List.copyOf(figures);
        histograms = List.copyOf(histograms);
    }
}
