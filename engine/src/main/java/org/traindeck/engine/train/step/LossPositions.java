package org.traindeck.engine.train.step;

import org.traindeck.engine.data.Dataset;
import org.traindeck.engine.data.SampleShape;

/**
 * DL4J sums a per-position head's loss over the positions (pixels, voxels, steps) of each sample; a run reports it
 * per position, as validation does, so that training and validation losses compare.
 */
public final class LossPositions {

    private LossPositions() {}

    public static int of(Dataset d) {
        return switch (d.task()) {
            case SEGMENTATION, SEQUENCE -> d.targetLength();
            case REGRESSION -> d.perStepValues() ? d.targetLength() / d.outputCount() : 1;
            case RECONSTRUCTION, DIFFUSION ->
                d.shape() instanceof SampleShape.Flat ? 1 : d.featureCount() / channelsOf(d.shape());
            default -> 1;
        };
    }

    private static int channelsOf(SampleShape shape) {
        return shape instanceof SampleShape.Image i
                ? i.channels()
                : shape instanceof SampleShape.Volume v ? v.channels() : 1;
    }
}
