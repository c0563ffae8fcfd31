package org.traindeck.engine.model.graph;

/** A problem with one node (or the model as a whole), at its config path ("model.layers[4]"). */
public record NodeProblem(String path, String message) {}
