package org.traindeck.engine.model.graph;

import org.deeplearning4j.nn.conf.inputs.InputType;

/** Spatial extents of images and volumes, for heads that output one value per position. */
public final class Extents {

    private Extents() {}

    public static boolean sameExtent(InputType a, InputType b) {
        return extentText(a).equals(extentText(b));
    }

    public static String extentText(InputType t) {
        return switch (t.getType()) {
            case CNN -> {
                InputType.InputTypeConvolutional c = (InputType.InputTypeConvolutional) t;
                yield c.getHeight() + "×" + c.getWidth() + " pixels";
            }
            case CNN3D -> {
                InputType.InputTypeConvolutional3D c = (InputType.InputTypeConvolutional3D) t;
                yield c.getDepth() + "×" + c.getHeight() + "×" + c.getWidth() + " voxels";
            }
            case RNN -> ((InputType.InputTypeRecurrent) t).getTimeSeriesLength() + " steps";
            default -> t.arrayElementsPerExample() + " values";
        };
    }
}
