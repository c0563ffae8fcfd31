package org.traindeck.engine.use.export;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.Deconvolution2D;
import org.deeplearning4j.nn.conf.layers.Deconvolution3D;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.conf.layers.wrapper.BaseWrapperLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.graph.vertex.GraphVertex;

/**
 * The keyword arguments of {@code torch.nn.ConvTranspose2d/3d} that give a deconv node's outputs: the window and
 * stride, and the rows at each end of the full transposed convolution DL4J drops ("same") as {@code padding} and
 * {@code output_padding}. PyTorch drops {@code padding} rows at the start of an axis and {@code padding -
 * output_padding} at its end, never fewer at the start than at the end, so a "same" node whose window minus stride is
 * odd (libnd4j drops the extra row at the end) or whose window is two or more rows smaller than its stride (libnd4j
 * shifts the output) has no such module: export refuses it, while reading a run's weights back still names it.
 */
public final class TransposedConvolutionArguments {

    private TransposedConvolutionArguments() {}

    /** @throws ExportException naming the first transposed convolution no PyTorch module copies */
    public static void requireExpressible(ComputationGraph network) {
        for (GraphVertex v : network.getVertices()) {
            if (v.hasLayer()) {
                Layer layer = v.getLayer().conf().getLayer();
                Layer inner = layer instanceof BaseWrapperLayer w ? w.getUnderlying() : layer;
                String why = isTransposed(inner) ? whyNot(v.getVertexName(), (ConvolutionLayer) inner) : null;
                if (why != null) {
                    throw new ExportException(why);
                }
            }
        }
    }

    static boolean isTransposed(Layer layer) {
        return layer instanceof Deconvolution2D || layer instanceof Deconvolution3D;
    }

    /** Null where PyTorch's module gives the node's outputs, else why not. */
    static String whyNot(String node, ConvolutionLayer layer) {
        int[] kernel = layer.getKernelSize();
        int[] stride = layer.getStride();
        for (int axis = 0; axis < kernel.length; axis++) {
            int start = dropped(layer, axis);
            int end = same(layer) ? kernel[axis] - stride[axis] - start : start;
            if (start < 0 || end > start) {
                return "node '" + node + "' (window " + kernel[axis] + ", stride " + stride[axis]
                        + ", \"same\" padding): DL4J's output is the full transposed convolution's that drops "
                        + start + " at the start and " + end + " at the end of an axis (negative: adds), which no "
                        + "torch.nn.ConvTranspose can copy (it drops at least as many at the start as at the end); "
                        + "for export give it a window equal to the stride, or larger by an even number, or \"valid\"";
            }
        }
        return null;
    }

    /** The module's arguments for a node {@link #whyNot} passes. */
    static ObjectNode of(ConvolutionLayer layer) {
        int[] kernel = layer.getKernelSize();
        int[] stride = layer.getStride();
        int[] padding = new int[kernel.length];
        int[] outputPadding = new int[kernel.length];
        for (int axis = 0; axis < kernel.length; axis++) {
            padding[axis] = dropped(layer, axis);
            int end = same(layer) ? kernel[axis] - stride[axis] - padding[axis] : padding[axis];
            outputPadding[axis] = padding[axis] - end;
        }
        ObjectNode args = ModelTensors.JSON.createObjectNode();
        args.set("kernel_size", ints(kernel));
        args.set("stride", ints(stride));
        args.set("padding", ints(padding));
        args.set("output_padding", ints(outputPadding));
        return args;
    }

    private static boolean same(ConvolutionLayer layer) {
        return layer.getConvolutionMode() == ConvolutionMode.Same;
    }

    /** Rows dropped at the start of an axis: in "same" mode libnd4j's calcPadding, C's division towards zero. */
    private static int dropped(ConvolutionLayer layer, int axis) {
        return same(layer) ? (layer.getKernelSize()[axis] - layer.getStride()[axis]) / 2 : layer.getPadding()[axis];
    }

    private static ArrayNode ints(int[] values) {
        ArrayNode a = ModelTensors.JSON.createArrayNode();
        for (int v : values) {
            a.add(v);
        }
        return a;
    }
}
