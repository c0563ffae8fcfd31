package org.traindeck.engine.train.samples;

/**
 * The three middle slices of a (channels, depth, height, width) volume, through its centre along each axis, as
 * (channels, rows, columns) planes: axial (height × width at the middle depth), coronal (depth × width at the middle
 * row) and sagittal (depth × height at the middle column).
 */
public final class VolumeSlices {

    public enum Axis {
        AXIAL,
        CORONAL,
        SAGITTAL
    }

    /** A plane of a volume: its values (channels, rows, columns) and size. */
    public record Plane(float[] values, int channels, int rows, int columns) {}

    private VolumeSlices() {}

    /** The middle {@code axis} slice of the volume at {@code offset} of {@code cdhw}. */
    public static Plane middle(float[] cdhw, int offset, int channels, int depth, int height, int width, Axis axis) {
        int rows = axis == Axis.AXIAL ? height : depth;
        int columns = axis == Axis.SAGITTAL ? height : width;
        float[] out = new float[channels * rows * columns];
        for (int c = 0; c < channels; c++) {
            for (int r = 0; r < rows; r++) {
                for (int k = 0; k < columns; k++) {
                    int d = axis == Axis.AXIAL ? depth / 2 : r;
                    int y = switch (axis) {
                        case AXIAL -> r;
                        case CORONAL -> height / 2;
                        case SAGITTAL -> k;
                    };
                    int x = axis == Axis.SAGITTAL ? width / 2 : k;
                    out[(c * rows + r) * columns + k] = cdhw[offset + ((c * depth + d) * height + y) * width + x];
                }
            }
        }
        return new Plane(out, channels, rows, columns);
    }
}
