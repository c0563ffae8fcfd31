/**
 * What a model's outputs become for people: class masks as PNG pictures (alone or over their image) and text sampled
 * from a sequence model. Used by {@code traindeck predict} and by the sample predictions a run shows while it trains,
 * so it depends on neither.
 */
package org.traindeck.engine.outputs;
