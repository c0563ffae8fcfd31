/**
 * Predictions of a trained model on new inputs: a continuation of a prompt ({@link
 * org.traindeck.engine.outputs.TextGenerator}), masks and overlays as pictures ({@link
 * org.traindeck.engine.outputs.MaskImages}), and the files {@code traindeck predict} writes.
 */
package org.traindeck.engine.use.predict;
