package org.traindeck.engine.train.health;

/** The histogram of one node's weights or gradients ({@code HistogramEvent.WEIGHTS} / {@code GRADIENTS}). */
public record LayerHistogram(String node, String quantity, HistogramData data) {}
