package org.traindeck.engine.model.layers;

import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.nn.conf.layers.samediff.SDLayerParams;
import org.nd4j.autodiff.samediff.SDVariable;
import org.nd4j.autodiff.samediff.SameDiff;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.shade.jackson.annotation.JsonProperty;

/**
 * The inverse of {@link PatchEmbedding3D}: tokens [mb, F, T] on a grid of d×h×w tokens (T = d·h·w, depth-major), each
 * projected linearly to s³·C values, laid out as a patch [C, s, s, s] and put in its place: volumes [mb, C, d·s, h·s,
 * w·s], channels first. In PyTorch: {@code rearrange(linear(x), "b (d h w) (c p q r) -> b c (d p) (h q) (w r)")}.
 */
public class Unpatch3D extends SameDiffBackedLayer {

    public static final String WEIGHTS = "W";
    public static final String BIAS = "b";

    @JsonProperty
    private int patchSize;

    @JsonProperty
    private long channels;

    @JsonProperty
    private int[] grid;

    @JsonProperty
    private long features;

    /** For JSON. */
    protected Unpatch3D() {}

    /** @param grid tokens along depth, height and width; features come from the input type */
    public Unpatch3D(int patchSize, long channels, int[] grid) {
        if (patchSize <= 0
                || channels <= 0
                || grid.length != 3
                || Arrays.stream(grid).anyMatch(g -> g <= 0)) {
            throw new IllegalArgumentException("Unpatch3D: patchSize, channels and the grid must be positive, got "
                    + "patchSize=" + patchSize + ", channels=" + channels + ", grid=" + Arrays.toString(grid));
        }
        this.patchSize = patchSize;
        this.channels = channels;
        this.grid = grid.clone();
    }

    public int patchSize() {
        return patchSize;
    }

    /** The volume's channels. */
    public long channels() {
        return channels;
    }

    /** Tokens along depth, height and width. */
    public int[] grid() {
        return grid.clone();
    }

    /** Features per token (0 until the input type is known). */
    public long features() {
        return features;
    }

    public long tokens() {
        return (long) grid[0] * grid[1] * grid[2];
    }

    /** Values per patch: s³·C. */
    public long patchValues() {
        return (long) patchSize * patchSize * patchSize * channels;
    }

    @Override
    public void setNIn(InputType inputType, boolean override) {
        InputType.InputTypeRecurrent in = checkedTokens(inputType);
        if (features <= 0 || override) {
            if (features != in.getSize()) {
                forgetParameterShapes();
            }
            features = in.getSize();
        }
    }

    @Override
    public InputType getOutputType(int layerIndex, InputType inputType) {
        InputType.InputTypeRecurrent in = checkedTokens(inputType);
        if (features > 0 && features != in.getSize()) {
            throw refuse(
                    getLayerName(),
                    "configured for " + features + " features per token but the input is " + describe(inputType));
        }
        return InputType.convolutional3D(
                Convolution3D.DataFormat.NCDHW,
                (long) grid[0] * patchSize,
                (long) grid[1] * patchSize,
                (long) grid[2] * patchSize,
                channels);
    }

    private InputType.InputTypeRecurrent checkedTokens(InputType inputType) {
        if (!(inputType instanceof InputType.InputTypeRecurrent in)) {
            throw refuse(
                    getLayerName(), "takes token sequences [minibatch, features, tokens], got " + describe(inputType));
        }
        if (in.getTimeSeriesLength() > 0 && in.getTimeSeriesLength() != tokens()) {
            throw refuse(
                    getLayerName(),
                    "a grid of " + grid[0] + "x" + grid[1] + "x" + grid[2] + " holds " + tokens() + " tokens, but the"
                            + " input has " + in.getTimeSeriesLength());
        }
        return in;
    }

    @Override
    public void defineParameters(SDLayerParams params) {
        params.addWeightParam(WEIGHTS, features, patchValues());
        params.addBiasParam(BIAS, 1, patchValues());
    }

    @Override
    public void initializeParameters(Map<String, INDArray> params) {
        initWeights(params.get(WEIGHTS), features, patchValues());
        params.get(BIAS).assign(0);
    }

    @Override
    public SDVariable defineLayer(SameDiff sd, SDVariable input, Map<String, SDVariable> params, SDVariable mask) {
        long p = patchSize;
        SDVariable rows = sd.permute(input, 0, 2, 1).reshape(-1, features); // [mb T, F]
        SDVariable patches = sd.mmul(rows, params.get(WEIGHTS)).add(params.get(BIAS)); // [mb T, C p p p]
        // [mb, gd, gh, gw, C, p, p, p] -> [mb, C, gd, p, gh, p, gw, p]
        SDVariable placed =
                sd.permute(patches.reshape(-1, grid[0], grid[1], grid[2], channels, p, p, p), 0, 4, 1, 5, 2, 6, 3, 7);
        return placed.reshape(-1, channels, grid[0] * p, grid[1] * p, grid[2] * p);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Unpatch3D other
                && super.equals(o)
                && patchSize == other.patchSize
                && channels == other.channels
                && Arrays.equals(grid, other.grid)
                && features == other.features;
    }

    @Override
    public int hashCode() {
        return Objects.hash(getClass(), getLayerName(), patchSize, channels, Arrays.hashCode(grid), features);
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "(" + (getLayerName() == null ? "" : getLayerName() + ", ") + "patchSize="
                + patchSize + ", channels=" + channels + ", grid=" + grid[0] + "x" + grid[1] + "x" + grid[2]
                + ", features=" + features + ")";
    }
}
