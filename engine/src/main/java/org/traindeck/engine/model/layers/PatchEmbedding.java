package org.traindeck.engine.model.layers;

import java.util.Map;
import java.util.Objects;
import org.deeplearning4j.nn.conf.CNN2DFormat;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.samediff.SDLayerParams;
import org.nd4j.autodiff.samediff.SDIndex;
import org.nd4j.autodiff.samediff.SDVariable;
import org.nd4j.autodiff.samediff.SameDiff;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.shade.jackson.annotation.JsonIgnore;
import org.nd4j.shade.jackson.annotation.JsonProperty;

/**
 * The ViT input stem: images [mb, C, H, W] cut into p x p patches, each projected to {@code width} features,
 * plus a learned position embedding, optionally after a learned class token, giving sequences [mb, width, N]
 * or [mb, width, N + 1] (class token first), N = (H/p)(W/p), patches in row-major order. The patches are cut
 * with a reshape and a permute and projected with one matrix product, not an im2col convolution (DL4J's slow path
 * on the CPU). Position embedding and class token are biases (no weight decay), drawn from N(0, 0.02^2).
 */
public class PatchEmbedding extends SameDiffBackedLayer {

    public static final String WEIGHTS = "W";
    public static final String BIAS = "b";
    public static final String POSITIONS = "pos";
    public static final String CLASS_TOKEN = "cls";
    private static final double EMBEDDING_STD = 0.02;

    @JsonProperty
    private int patchSize;

    @JsonProperty
    private long width;

    @JsonProperty
    private boolean classToken;

    @JsonProperty
    private long channels;

    @JsonProperty
    private long imageHeight;

    @JsonProperty
    private long imageWidth;

    /** For JSON. */
    protected PatchEmbedding() {}

    /** Image size and channels come from the input type. */
    public PatchEmbedding(int patchSize, long width, boolean classToken) {
        if (patchSize <= 0 || width <= 0) {
            throw new IllegalArgumentException("PatchEmbedding: patchSize and width must be positive, got patchSize="
                    + patchSize + ", width=" + width);
        }
        this.patchSize = patchSize;
        this.width = width;
        this.classToken = classToken;
    }

    @JsonIgnore // the field is the JSON property
    public int getPatchSize() {
        return patchSize;
    }

    /** Patches per image plus the class token: the output's sequence length. */
    public long sequenceLength() {
        return (imageHeight / patchSize) * (imageWidth / patchSize) + (classToken ? 1 : 0);
    }

    public int patchSize() {
        return patchSize;
    }

    /** Features per patch. */
    public long width() {
        return width;
    }

    public boolean classToken() {
        return classToken;
    }

    /** The images' channels, height and width (0 until the input type is known). */
    public long channels() {
        return channels;
    }

    public long imageHeight() {
        return imageHeight;
    }

    public long imageWidth() {
        return imageWidth;
    }

    @Override
    public void setNIn(InputType inputType, boolean override) {
        InputType.InputTypeConvolutional image = checkedImage(inputType);
        if (channels <= 0 || override) {
            if (channels != image.getChannels() || imageHeight != image.getHeight() || imageWidth != image.getWidth()) {
                forgetParameterShapes();
            }
            channels = image.getChannels();
            imageHeight = image.getHeight();
            imageWidth = image.getWidth();
        }
    }

    @Override
    public InputType getOutputType(int layerIndex, InputType inputType) {
        InputType.InputTypeConvolutional image = checkedImage(inputType);
        if (channels > 0
                && (channels != image.getChannels()
                        || imageHeight != image.getHeight()
                        || imageWidth != image.getWidth())) {
            throw refuse(
                    getLayerName(),
                    "configured for " + channels + "x" + imageHeight + "x" + imageWidth + " images but the input is "
                            + describe(inputType));
        }
        long patches = (image.getHeight() / patchSize) * (image.getWidth() / patchSize);
        return InputType.recurrent(width, patches + (classToken ? 1 : 0));
    }

    private InputType.InputTypeConvolutional checkedImage(InputType inputType) {
        if (!(inputType instanceof InputType.InputTypeConvolutional image) || image.getFormat() != CNN2DFormat.NCHW) {
            throw refuse(
                    getLayerName(),
                    "takes channels-first images [minibatch, channels, height, width] "
                            + "(InputType.convolutional, NCHW), got " + describe(inputType));
        }
        if (image.getHeight() % patchSize != 0 || image.getWidth() % patchSize != 0) {
            throw refuse(
                    getLayerName(),
                    "patch size " + patchSize + " does not divide the image size " + image.getHeight() + "x"
                            + image.getWidth());
        }
        return image;
    }

    @Override
    public void defineParameters(SDLayerParams params) {
        params.addWeightParam(WEIGHTS, channels * patchSize * patchSize, width);
        params.addBiasParam(BIAS, 1, width);
        params.addBiasParam(POSITIONS, width, sequenceLength());
        if (classToken) {
            params.addBiasParam(CLASS_TOKEN, width, 1);
        }
    }

    @Override
    public void initializeParameters(Map<String, INDArray> params) {
        initWeights(params.get(WEIGHTS), channels * patchSize * patchSize, width);
        params.get(BIAS).assign(0);
        initNormal(params.get(POSITIONS), EMBEDDING_STD);
        if (classToken) {
            initNormal(params.get(CLASS_TOKEN), EMBEDDING_STD);
        }
    }

    @Override
    public SDVariable defineLayer(SameDiff sd, SDVariable input, Map<String, SDVariable> params, SDVariable mask) {
        long rows = imageHeight / patchSize;
        long cols = imageWidth / patchSize;
        long patchLength = channels * patchSize * patchSize;
        // [mb, C, rows, p, cols, p] -> [mb, rows, cols, C, p, p]: one patch per row of a matrix
        SDVariable cut = sd.permute(input.reshape(-1, channels, rows, patchSize, cols, patchSize), 0, 2, 4, 1, 3, 5);
        SDVariable projected = sd.mmul(cut.reshape(-1, patchLength), params.get(WEIGHTS)); // [mb * N, width]
        SDVariable tokens = sd.permute(projected.reshape(-1, rows * cols, width), 0, 2, 1)
                .add(params.get(BIAS).reshape(width, 1));
        if (classToken) {
            SDVariable firstSlot = sd.zerosLike(tokens.get(SDIndex.all(), SDIndex.all(), SDIndex.interval(0, 1)));
            tokens = sd.concat(2, firstSlot.add(params.get(CLASS_TOKEN)), tokens);
        }
        return tokens.add(params.get(POSITIONS));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PatchEmbedding other
                && super.equals(o)
                && patchSize == other.patchSize
                && width == other.width
                && classToken == other.classToken
                && channels == other.channels
                && imageHeight == other.imageHeight
                && imageWidth == other.imageWidth;
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                getClass(), getLayerName(), patchSize, width, classToken, channels, imageHeight, imageWidth);
    }

    @Override
    public String toString() {
        return "PatchEmbedding(" + (getLayerName() == null ? "" : getLayerName() + ", ") + "patchSize=" + patchSize
                + ", width=" + width + ", classToken=" + classToken + ", image=" + channels + "x" + imageHeight
                + "x" + imageWidth + ")";
    }
}
