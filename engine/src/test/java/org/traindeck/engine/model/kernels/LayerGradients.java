package org.traindeck.engine.model.kernels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.function.DoubleSupplier;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * What the kernel tests do to one layer: a pass forward and back, and central finite differences of a loss against
 * the gradient the layer computed. The step (1e-2 in float) is large enough for float32 layers to give a slope and
 * small enough that a missing or doubled path is far outside the tolerance.
 */
public final class LayerGradients {

    /** How far an analytic element may be from the numeric slope: absolute + relative × |slope|. */
    public record Tolerance(double absolute, double relative) {
        public static final Tolerance DEFAULT = new Tolerance(5e-3, 2e-2);
    }

    private static final double STEP = 1e-2;

    private LayerGradients() {}

    /** Forward (output copied into {@code out[0]}) and backward with {@code eps}; the input gradient copied. */
    public static Pair<Gradient, INDArray> forwardBackward(
            Layer layer, INDArray x, INDArray eps, INDArray[] out, boolean training) {
        LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
        layer.setInput(x, ws);
        out[0] = layer.activate(training, ws).dup();
        Pair<Gradient, INDArray> p = layer.backpropGradient(eps, ws);
        return new Pair<>(p.getFirst(), p.getSecond().dup());
    }

    /** {@link #forwardBackward} in training mode. */
    public static Pair<Gradient, INDArray> forwardBackward(Layer layer, INDArray x, INDArray eps, INDArray[] out) {
        return forwardBackward(layer, x, eps, out, true);
    }

    /** L = Σ eps·out of the layer on x, summed in double. */
    public static double weightedOutput(Layer layer, INDArray x, INDArray eps, boolean training) {
        LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
        layer.setInput(x, ws);
        return layer.activate(training, ws)
                .castTo(DataType.DOUBLE)
                .mul(eps.castTo(DataType.DOUBLE))
                .sumNumber()
                .doubleValue();
    }

    /**
     * Nudges each element of {@code varied} (parameters or input, changed in place and restored) by ± the step and
     * compares the loss's slope with the same element of {@code analytic}.
     */
    public static void checkSlopes(
            INDArray varied, INDArray analytic, DoubleSupplier loss, Tolerance tolerance, String what) {
        for (int i = 0; i < varied.length(); i++) {
            float keep = varied.getFloat(i);
            varied.putScalar(i, keep + STEP);
            double plus = loss.getAsDouble();
            varied.putScalar(i, keep - STEP);
            double minus = loss.getAsDouble();
            varied.putScalar(i, keep);
            double numeric = (plus - minus) / (2 * STEP);
            assertThat(analytic.getDouble(i))
                    .as("%s %d", what, i)
                    .isCloseTo(numeric, within(tolerance.absolute() + tolerance.relative() * Math.abs(numeric)));
        }
    }

    /**
     * Random parameters, then the parameters' and the input's gradients of L = Σ eps·out (eps random, the output's
     * shape) against central differences; the loss is measured in inference mode, as the layers behave the same in
     * both.
     */
    public static void checkAgainstFiniteDifferences(Layer layer, INDArray x) {
        layer.params().assign(Nd4j.randn(DataType.FLOAT, layer.params().shape()));
        INDArray eps = Nd4j.randn(DataType.FLOAT, outputShape(layer, x));
        Pair<Gradient, INDArray> g = forwardBackward(layer, x, eps, new INDArray[1]);
        INDArray analytic = layer.getGradientsViewArray().dup();
        DoubleSupplier loss = () -> weightedOutput(layer, x, eps, false);
        checkSlopes(layer.params(), analytic, loss, Tolerance.DEFAULT, "parameter");
        checkSlopes(x, g.getSecond(), loss, Tolerance.DEFAULT, "input");
    }

    private static long[] outputShape(Layer layer, INDArray x) {
        LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
        layer.setInput(x, ws);
        return layer.activate(true, ws).shape();
    }
}
