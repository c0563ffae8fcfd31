package org.traindeck.engine.train.samples;

import java.awt.image.BufferedImage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.data.Dataset;
import org.traindeck.engine.data.SampleShape;
import org.traindeck.engine.events.SamplesEvent;
import org.traindeck.engine.outputs.MaskImages;

/**
 * Predicts a {@link SampleSet} in inference mode and says what came out, each task its own way: an image with its true
 * label and the most probable classes, an image (or a volume's middle slices) with its true and predicted mask, a
 * reconstruction beside its input, values beside the true ones, a continuation of a prompt.
 */
public final class SamplePredictor {

    /** How many classes an example lists, most probable first. */
    static final int TOP_K = 5;

    private final MaskPictures masks;
    private final TextSamples text;

    public SamplePredictor(MaskPictures masks, TextSamples text) {
        this.masks = masks;
        this.text = text;
    }

    /** What the network makes of the examples now; {@code interval} varies the text's random draws. */
    public List<SamplesEvent.Sample> predict(ComputationGraph net, SampleSet set, int interval) {
        Dataset data = set.data();
        if (set.size() == 0) {
            return List.of();
        }
        if (data.task() == Task.DIFFUSION) {
            // one forward pass denoises one timestep: pictures of a diffusion model come from its sampler
            return List.of();
        }
        if (data.task() == Task.SEQUENCE) {
            // per-step targets of named inputs (a trajectory) have no text to continue
            return data.namedInputs() ? List.of() : text.continuations(net, set, interval);
        }
        INDArray out = net.output(false, set.batch().inputs())[0];
        float[] y = out.castTo(DataType.FLOAT).dup('c').data().asFloat();
        float[] x = new float[set.size() * data.featureCount()];
        for (int i = 0; i < set.size(); i++) {
            data.copyFeatures(i, x, i * data.featureCount());
        }
        List<SamplesEvent.Sample> samples = new ArrayList<>(set.size());
        for (int i = 0; i < set.size(); i++) {
            samples.add(
                    switch (data.task()) {
                        case CLASSIFICATION -> classification(set, i, x, y);
                        case REGRESSION -> regression(set, i, y);
                        case SEGMENTATION -> masks.segmentation(set, i, x, y);
                        case RECONSTRUCTION -> reconstruction(set, i, x, y);
                        case SEQUENCE, DIFFUSION ->
                            throw new IllegalStateException(
                                    "sequences are continued, diffusion sampled, not predicted");
                    });
        }
        return samples;
    }

    private static SamplesEvent.Sample classification(SampleSet set, int i, float[] x, float[] y) {
        Dataset data = set.data();
        int k = data.outputCount();
        Integer[] order = new Integer[k];
        for (int c = 0; c < k; c++) {
            order[c] = c;
        }
        Arrays.sort(order, (a, b) -> Float.compare(y[i * k + b], y[i * k + a]));
        List<SamplesEvent.Score> top = new ArrayList<>();
        for (int r = 0; r < Math.min(TOP_K, k); r++) {
            top.add(new SamplesEvent.Score(className(data, order[r]), y[i * k + order[r]]));
        }
        List<SamplesEvent.Picture> pictures =
                data.shape() instanceof SampleShape.Image im ? List.of(input(x, i, im)) : List.of();
        return new SamplesEvent.Sample(
                set.indices()[i],
                className(data, data.classOf(i)),
                className(data, order[0]),
                top,
                null,
                null,
                pictures);
    }

    private static SamplesEvent.Sample regression(SampleSet set, int i, float[] y) {
        Dataset data = set.data();
        int t = data.targetLength();
        float[] truth = new float[t];
        data.copyTargets(i, truth, 0);
        return new SamplesEvent.Sample(
                set.indices()[i], values(truth, 0, t), values(y, i * t, t), null, null, null, null);
    }

    private static SamplesEvent.Sample reconstruction(SampleSet set, int i, float[] x, float[] y) {
        Dataset data = set.data();
        int d = data.featureCount();
        double se = 0;
        for (int j = 0; j < d; j++) {
            double e = y[i * d + j] - x[i * d + j];
            se += e * e;
        }
        String mse = String.format(Locale.ROOT, "MSE %.4g", se / d);
        List<SamplesEvent.Picture> pictures = new ArrayList<>();
        if (data.shape() instanceof SampleShape.Image im) {
            pictures.add(picture("input", MaskImages.picture(x, i * d, im.channels(), im.height(), im.width())));
            pictures.add(
                    picture("reconstruction", MaskImages.picture(y, i * d, im.channels(), im.height(), im.width())));
        } else if (data.shape() instanceof SampleShape.Volume v) {
            for (VolumeSlices.Axis axis : VolumeSlices.Axis.values()) {
                pictures.add(slice("input-" + name(axis), x, i * d, v, axis));
                pictures.add(slice("reconstruction-" + name(axis), y, i * d, v, axis));
            }
        }
        return new SamplesEvent.Sample(
                set.indices()[i],
                pictures.isEmpty() ? values(x, i * d, d) : null,
                pictures.isEmpty() ? values(y, i * d, d) + " (" + mse + ")" : mse,
                null,
                null,
                null,
                pictures);
    }

    static SamplesEvent.Picture input(float[] x, int i, SampleShape.Image im) {
        return picture("input", MaskImages.picture(x, i * im.values(), im.channels(), im.height(), im.width()));
    }

    static SamplesEvent.Picture slice(
            String label, float[] values, int offset, SampleShape.Volume v, VolumeSlices.Axis axis) {
        VolumeSlices.Plane p =
                VolumeSlices.middle(values, offset, v.channels(), v.depth(), v.height(), v.width(), axis);
        return picture(label, MaskImages.picture(p.values(), 0, p.channels(), p.rows(), p.columns()));
    }

    static SamplesEvent.Picture picture(String label, BufferedImage image) {
        return new SamplesEvent.Picture(label, image.getWidth(), image.getHeight(), 3, MaskImages.png(image));
    }

    static String name(VolumeSlices.Axis axis) {
        return axis.name().toLowerCase(Locale.ROOT);
    }

    static String className(Dataset data, int c) {
        List<String> names = data.classNames();
        return names != null && c < names.size() ? c + " (" + names.get(c) + ")" : String.valueOf(c);
    }

    /** At most 8 values, in four significant digits. */
    private static String values(float[] v, int offset, int n) {
        StringBuilder b = new StringBuilder(n == 1 ? "" : "[");
        for (int j = 0; j < Math.min(n, 8); j++) {
            b.append(j == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.4g", v[offset + j]));
        }
        if (n > 8) {
            b.append(", … ").append(n - 8).append(" more");
        }
        return b.append(n == 1 ? "" : "]").toString();
    }
}
