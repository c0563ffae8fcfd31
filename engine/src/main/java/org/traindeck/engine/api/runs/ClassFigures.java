package org.traindeck.engine.api.runs;

/**
 * One class's figures in an evaluation. {@code precision}, {@code recall}, {@code f1} and {@code iou} are NaN where
 * they are undefined (a class never predicted has no precision; one never present and never predicted, no IoU).
 *
 * @param support how many samples (pixels, voxels) truly are of the class
 */
public record ClassFigures(
        int id, String name, long support, long predicted, double precision, double recall, double f1, double iou) {}
