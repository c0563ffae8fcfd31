package org.traindeck.engine.weights;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.graph.vertex.GraphVertex;
import org.deeplearning4j.nn.params.BatchNormalizationParamInitializer;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.use.export.ExportException;
import org.traindeck.engine.use.export.NamedTensor;
import org.traindeck.engine.use.export.NamingTable;

/**
 * The export's naming table read backwards: where each value of each exported tensor lives among a network's DL4J
 * parameters. Each parameter is filled with its values' own positions and named as export names it; the named tensors
 * then hold, value by value, where they came from (in two halves of 12 and 24 bits, each exact in float32). Every
 * layout of the table is a rearrangement, except BatchNorm's variance where DL4J keeps log10 of the standard
 * deviation, which is converted. The result is checked against the table on the network's own values, so a layout
 * this cannot invert is found here and never loads wrong weights.
 */
final class TensorPlacement {

    private static final int LOW_BITS = 12;

    /**
     * One exported tensor: its node and shape, and for each of its values (row-major) the parameter key and the
     * row-major index there; {@code logStd}: the values are variances to store as log10 of the standard deviation.
     */
    record Slot(
            String tensor, String node, long[] shape, List<String> keys, int[] keyOf, int[] indexOf, boolean logStd) {
        String shapeText() {
            return Arrays.toString(shape);
        }
    }

    /** Every node's slots, and the nodes with parameters the table cannot name (with why). */
    record Placement(Map<String, Slot> slots, Map<String, String> unnamed) {}

    private TensorPlacement() {}

    static Placement of(ComputationGraph net, NamingTable table) {
        Map<String, Slot> slots = new LinkedHashMap<>();
        Map<String, String> unnamed = new LinkedHashMap<>();
        GraphVertex[] vertices = net.getVertices();
        for (int i : net.topologicalSortOrder()) {
            GraphVertex v = vertices[i];
            if (!v.hasLayer() || v.getLayer().paramTable().isEmpty()) {
                continue;
            }
            String node = v.getVertexName();
            Layer conf = v.getLayer().conf().getLayer();
            Map<String, INDArray> params = v.getLayer().paramTable();
            try {
                for (Slot s : node(node, conf, params, table)) {
                    slots.put(s.tensor(), s);
                }
            } catch (ExportException e) {
                unnamed.put(node, e.getMessage());
            } catch (IllegalStateException e) {
                // a layout of the table that is not a rearrangement: never guess, keep the node and say so
                unnamed.put(node, e.getMessage());
            }
        }
        return new Placement(slots, unnamed);
    }

    private static List<Slot> node(String node, Layer conf, Map<String, INDArray> params, NamingTable table) {
        List<String> keys = new ArrayList<>(params.keySet());
        long[] offsets = new long[keys.size() + 1];
        for (int k = 0; k < keys.size(); k++) {
            offsets[k + 1] = offsets[k] + params.get(keys.get(k)).length();
        }
        List<NamedTensor> low = table.tensors(node, conf, codes(params, keys, offsets, true));
        List<NamedTensor> high = table.tensors(node, conf, codes(params, keys, offsets, false));
        BitSet seen = new BitSet();
        List<Slot> out = new ArrayList<>();
        for (int t = 0; t < low.size(); t++) {
            NamedTensor lo = low.get(t);
            if (isLogStdVariance(node, conf, params, lo.name())) {
                int n = lo.values().length;
                int key = keys.indexOf(BatchNormalizationParamInitializer.GLOBAL_LOG_STD);
                int[] keyOf = new int[n];
                Arrays.fill(keyOf, key);
                int[] indexOf = new int[n];
                Arrays.setAll(indexOf, j -> j);
                out.add(new Slot(lo.name(), node, lo.shape(), keys, keyOf, indexOf, true));
                continue;
            }
            out.add(decode(node, lo, high.get(t), keys, offsets, seen));
        }
        verify(node, conf, params, table, out);
        return out;
    }

    private static Slot decode(
            String node, NamedTensor lo, NamedTensor hi, List<String> keys, long[] offsets, BitSet seen) {
        float[] l = lo.values();
        float[] h = hi.values();
        int[] keyOf = new int[l.length];
        int[] indexOf = new int[l.length];
        for (int j = 0; j < l.length; j++) {
            long code = ((long) h[j] << LOW_BITS) + (long) l[j];
            if (l[j] != Math.rint(l[j])
                    || h[j] != Math.rint(h[j])
                    || code < 0
                    || code >= offsets[keys.size()]
                    || seen.get(Math.toIntExact(code))) {
                throw new IllegalStateException("the export's layout of " + lo.name() + " (node '" + node
                        + "') is not a rearrangement of its parameters, so it cannot be read back");
            }
            seen.set((int) code);
            int k = Arrays.binarySearch(offsets, code);
            k = k >= 0 ? k : -k - 2;
            keyOf[j] = k;
            indexOf[j] = Math.toIntExact(code - offsets[k]);
        }
        return new Slot(lo.name(), node, lo.shape(), keys, keyOf, indexOf, false);
    }

    /** The parameters as float32 arrays of their shapes, each value its position's low or high bits. */
    private static Map<String, INDArray> codes(
            Map<String, INDArray> params, List<String> keys, long[] offsets, boolean low) {
        Map<String, INDArray> out = new LinkedHashMap<>();
        for (int k = 0; k < keys.size(); k++) {
            INDArray p = params.get(keys.get(k));
            float[] values = new float[Math.toIntExact(p.length())];
            for (int j = 0; j < values.length; j++) {
                long code = offsets[k] + j;
                values[j] = low ? code & ((1 << LOW_BITS) - 1) : code >>> LOW_BITS;
            }
            out.put(keys.get(k), Nd4j.createFromArray(values).reshape('c', p.shape()));
        }
        return out;
    }

    private static boolean isLogStdVariance(String node, Layer conf, Map<String, INDArray> params, String tensor) {
        return conf instanceof BatchNormalization
                && params.containsKey(BatchNormalizationParamInitializer.GLOBAL_LOG_STD)
                && tensor.equals(node + ".running_var");
    }

    /** The slots gather from the network's own parameters exactly what export writes from them. */
    private static void verify(
            String node, Layer conf, Map<String, INDArray> params, NamingTable table, List<Slot> slots) {
        List<NamedTensor> exported = table.tensors(node, conf, params);
        Map<String, float[]> flat = flat(params);
        for (int t = 0; t < slots.size(); t++) {
            Slot s = slots.get(t);
            if (s.logStd()) {
                continue;
            }
            float[] expected = exported.get(t).values();
            for (int j = 0; j < expected.length; j++) {
                float got = flat.get(s.keys().get(s.keyOf()[j]))[s.indexOf()[j]];
                if (Float.floatToIntBits(got) != Float.floatToIntBits(expected[j])) {
                    throw new IllegalStateException("reading back the export's layout of " + s.tensor() + " (node '"
                            + node + "') does not give its values");
                }
            }
        }
    }

    /** Each parameter's values as float32 in row-major order. */
    static Map<String, float[]> flat(Map<String, INDArray> params) {
        Map<String, float[]> out = new LinkedHashMap<>();
        params.forEach((k, p) ->
                out.put(k, p.castTo(DataType.FLOAT).dup('c').reshape(p.length()).toFloatVector()));
        return out;
    }
}
