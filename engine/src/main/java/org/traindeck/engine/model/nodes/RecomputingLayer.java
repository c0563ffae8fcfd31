package org.traindeck.engine.model.nodes;

/**
 * A layer configuration whose node has {@code "recompute": true}: it keeps no forward intermediates for the backward
 * pass and computes them again there. The fit estimate and the summary ask for it.
 */
public interface RecomputingLayer {}
