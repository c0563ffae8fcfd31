package org.traindeck.engine.model.layers;

import java.util.Map;
import java.util.Objects;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.samediff.SDLayerParams;
import org.nd4j.autodiff.samediff.SDVariable;
import org.nd4j.autodiff.samediff.SameDiff;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.shade.jackson.annotation.JsonProperty;

/**
 * The ViT input stem for volumes: volumes [mb, C, D, H, W] cut into s×s×s patches, each projected to {@code width}
 * features, plus a learned position embedding per patch, giving sequences [mb, width, T], T = (D/s)(H/s)(W/s). Patches
 * run depth-major, then height, then width, and a patch's values are in [C, s, s, s] order, as PyTorch's
 * {@code Conv3d(C, width, s, stride=s)(x).flatten(2).transpose(1, 2)} gives them. Positions are biases (no weight
 * decay), drawn from N(0, 0.02²). Volumes are channels first whatever format DL4J's input type reports (its 3D pooling
 * reports NDHWC for a channels-first output).
 */
public class PatchEmbedding3D extends SameDiffBackedLayer {

    public static final String WEIGHTS = "W";
    public static final String BIAS = "b";
    public static final String POSITIONS = "pos";
    private static final double EMBEDDING_STD = 0.02;

    @JsonProperty
    private int patchSize;

    @JsonProperty
    private long width;

    @JsonProperty
    private long channels;

    @JsonProperty
    private long depth;

    @JsonProperty
    private long height;

    @JsonProperty
    private long volumeWidth;

    /** For JSON. */
    protected PatchEmbedding3D() {}

    /** Volume size and channels come from the input type. */
    public PatchEmbedding3D(int patchSize, long width) {
        if (patchSize <= 0 || width <= 0) {
            throw new IllegalArgumentException("PatchEmbedding3D: patchSize and width must be positive, got patchSize="
                    + patchSize + ", width=" + width);
        }
        this.patchSize = patchSize;
        this.width = width;
    }

    public int patchSize() {
        return patchSize;
    }

    /** Features per patch. */
    public long width() {
        return width;
    }

    /** The volumes' channels, depth, height and width (0 until the input type is known). */
    public long channels() {
        return channels;
    }

    public long depth() {
        return depth;
    }

    public long height() {
        return height;
    }

    public long volumeWidth() {
        return volumeWidth;
    }

    /** Patches per volume: the output's sequence length. */
    public long tokens() {
        return (depth / patchSize) * (height / patchSize) * (volumeWidth / patchSize);
    }

    @Override
    public void setNIn(InputType inputType, boolean override) {
        InputType.InputTypeConvolutional3D v = checkedVolume(inputType);
        if (channels <= 0 || override) {
            if (channels != v.getChannels()
                    || depth != v.getDepth()
                    || height != v.getHeight()
                    || volumeWidth != v.getWidth()) {
                forgetParameterShapes();
            }
            channels = v.getChannels();
            depth = v.getDepth();
            height = v.getHeight();
            volumeWidth = v.getWidth();
        }
    }

    @Override
    public InputType getOutputType(int layerIndex, InputType inputType) {
        InputType.InputTypeConvolutional3D v = checkedVolume(inputType);
        if (channels > 0
                && (channels != v.getChannels()
                        || depth != v.getDepth()
                        || height != v.getHeight()
                        || volumeWidth != v.getWidth())) {
            throw refuse(
                    getLayerName(),
                    "configured for " + channels + "x" + depth + "x" + height + "x" + volumeWidth
                            + " volumes but the input is " + describe(inputType));
        }
        long t = (v.getDepth() / patchSize) * (v.getHeight() / patchSize) * (v.getWidth() / patchSize);
        return InputType.recurrent(width, t);
    }

    private InputType.InputTypeConvolutional3D checkedVolume(InputType inputType) {
        if (!(inputType instanceof InputType.InputTypeConvolutional3D v)) {
            throw refuse(
                    getLayerName(),
                    "takes volumes [minibatch, channels, depth, height, width] (InputType.convolutional3D), got "
                            + describe(inputType));
        }
        if (v.getDepth() % patchSize != 0 || v.getHeight() % patchSize != 0 || v.getWidth() % patchSize != 0) {
            throw refuse(
                    getLayerName(),
                    "patch size " + patchSize + " does not divide the volume size " + v.getDepth() + "x" + v.getHeight()
                            + "x" + v.getWidth());
        }
        return v;
    }

    @Override
    public void defineParameters(SDLayerParams params) {
        long cube = (long) patchSize * patchSize * patchSize;
        params.addWeightParam(WEIGHTS, channels * cube, width);
        params.addBiasParam(BIAS, 1, width);
        params.addBiasParam(POSITIONS, width, tokens());
    }

    @Override
    public void initializeParameters(Map<String, INDArray> params) {
        long cube = (long) patchSize * patchSize * patchSize;
        initWeights(params.get(WEIGHTS), channels * cube, width);
        params.get(BIAS).assign(0);
        initNormal(params.get(POSITIONS), EMBEDDING_STD);
    }

    @Override
    public SDVariable defineLayer(SameDiff sd, SDVariable input, Map<String, SDVariable> params, SDVariable mask) {
        long p = patchSize;
        long gd = depth / p;
        long gh = height / p;
        long gw = volumeWidth / p;
        // [mb, C, gd, p, gh, p, gw, p] -> [mb, gd, gh, gw, C, p, p, p]: one patch per row of a matrix
        SDVariable cut = sd.permute(input.reshape(-1, channels, gd, p, gh, p, gw, p), 0, 2, 4, 6, 1, 3, 5, 7);
        SDVariable projected = sd.mmul(cut.reshape(-1, channels * p * p * p), params.get(WEIGHTS)); // [mb T, width]
        SDVariable tokens = sd.permute(projected.reshape(-1, gd * gh * gw, width), 0, 2, 1)
                .add(params.get(BIAS).reshape(width, 1));
        return tokens.add(params.get(POSITIONS));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PatchEmbedding3D other
                && super.equals(o)
                && patchSize == other.patchSize
                && width == other.width
                && channels == other.channels
                && depth == other.depth
                && height == other.height
                && volumeWidth == other.volumeWidth;
    }

    @Override
    public int hashCode() {
        return Objects.hash(getClass(), getLayerName(), patchSize, width, channels, depth, height, volumeWidth);
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "(" + (getLayerName() == null ? "" : getLayerName() + ", ") + "patchSize="
                + patchSize + ", width=" + width + ", volume=" + channels + "x" + depth + "x" + height + "x"
                + volumeWidth + ")";
    }
}
