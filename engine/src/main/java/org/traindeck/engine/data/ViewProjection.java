package org.traindeck.engine.data;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.traindeck.engine.config.DiffusionConfig;
import org.traindeck.engine.config.InvalidConfigException;

/**
 * A conditioning input of a diffusion model that is a view of its volume ({@code diffusion.projections}): the volume's
 * mean along one axis, the view average-pooled by a whole {@code factor} when it is larger than that mean (16³ volumes
 * with 32² views: 2). Volumes and views are held channels first, as a dataset holds them.
 *
 * @param input      the view's name, and {@code inputIndex} its position among the dataset's inputs
 * @param axis       0, 1 or 2: the volume's depth, height or width, the axis the view is the mean along
 * @param projection the mean's shape: the view's channels, and the volume's two other axes
 */
public record ViewProjection(
        String input,
        int inputIndex,
        int axis,
        int factor,
        SampleShape.Volume volume,
        SampleShape.Image view,
        SampleShape.Image projection) {

    /** How the config spells the axes, by index. */
    private static final List<String> AXES = List.of("depth", "height", "width");

    /**
     * The source's projections, each checked against its shapes.
     *
     * @param at the source's config path, where a view that does not fit is reported
     * @throws InvalidConfigException a view that is no whole multiple of its projection, or no volume to project
     */
    public static List<ViewProjection> of(DiffusionConfig c, List<InputArray> inputs, SampleShape target, String at) {
        List<ViewProjection> out = new ArrayList<>();
        for (Map.Entry<String, String> e : c.projections().entrySet()) {
            String path = at + ".diffusion.projections." + e.getKey();
            if (!(target instanceof SampleShape.Volume v)) {
                throw new InvalidConfigException(
                        path, "projections apply to volumes [N, D, H, W, C], but the targets are " + target);
            }
            int index = indexOf(inputs, e.getKey());
            if (index < 0) {
                throw new InvalidConfigException(path, "names no conditioning input of this source");
            }
            out.add(fit(
                    e.getKey(),
                    index,
                    AXES.indexOf(e.getValue()),
                    v,
                    inputs.get(index).shape(),
                    path));
        }
        return List.copyOf(out);
    }

    private static ViewProjection fit(
            String name, int index, int axis, SampleShape.Volume v, SampleShape shape, String path) {
        int rows = axis == 0 ? v.height() : v.depth();
        int columns = axis == 2 ? v.height() : v.width();
        SampleShape.Image projection = new SampleShape.Image(v.channels(), rows, columns);
        String expected = "the volume's mean along its " + AXES.get(axis) + " is " + projection
                + ": the view must be that, or a whole multiple of its rows and columns with the same channels";
        if (!(shape instanceof SampleShape.Image view)) {
            throw new InvalidConfigException(path, "\"" + name + "\" is " + shape + ", not an image; " + expected);
        }
        int factor = view.height() / rows;
        if (view.channels() != v.channels()
                || factor < 1
                || view.height() != factor * rows
                || view.width() != factor * columns) {
            throw new InvalidConfigException(path, "\"" + name + "\" is " + view + "; " + expected);
        }
        return new ViewProjection(name, index, axis, factor, v, view, projection);
    }

    private static int indexOf(List<InputArray> inputs, String name) {
        for (int k = 0; k < inputs.size(); k++) {
            if (inputs.get(k).name().equals(name)) {
                return k;
            }
        }
        return -1;
    }

    /** The mean along the axis of the volume at {@code offset} of {@code cdhw}: [channels, rows, columns]. */
    public float[] project(float[] cdhw, int offset) {
        int d = volume.depth();
        int h = volume.height();
        int w = volume.width();
        int along = axis == 0 ? d : axis == 1 ? h : w;
        int plane = projection.height() * projection.width();
        double[] sums = new double[projection.values()];
        for (int c = 0; c < volume.channels(); c++) {
            for (int z = 0; z < d; z++) {
                for (int y = 0; y < h; y++) {
                    for (int x = 0; x < w; x++) {
                        int row = axis == 0 ? y : z;
                        int column = axis == 2 ? y : x;
                        sums[c * plane + row * projection.width() + column] +=
                                cdhw[offset + ((c * d + z) * h + y) * w + x];
                    }
                }
            }
        }
        float[] mean = new float[sums.length];
        for (int j = 0; j < sums.length; j++) {
            mean[j] = (float) (sums[j] / along);
        }
        return mean;
    }

    /** The view at {@code offset} of {@code chw}, average-pooled by the factor to the projection's size. */
    public float[] pool(float[] chw, int offset) {
        int rows = projection.height();
        int columns = projection.width();
        float[] out = new float[projection.values()];
        double cell = (double) factor * factor;
        for (int c = 0; c < projection.channels(); c++) {
            for (int r = 0; r < rows; r++) {
                for (int k = 0; k < columns; k++) {
                    double sum = 0;
                    for (int dy = 0; dy < factor; dy++) {
                        int base = offset + (c * view.height() + r * factor + dy) * view.width() + k * factor;
                        for (int dx = 0; dx < factor; dx++) {
                            sum += chw[base + dx];
                        }
                    }
                    out[(c * rows + r) * columns + k] = (float) (sum / cell);
                }
            }
        }
        return out;
    }
}
