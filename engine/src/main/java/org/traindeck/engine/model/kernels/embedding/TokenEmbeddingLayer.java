package org.traindeck.engine.model.kernels.embedding;

import java.util.Arrays;
import org.deeplearning4j.exception.DL4JInvalidInputException;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.gradient.DefaultGradient;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.layers.feedforward.embedding.EmbeddingSequenceLayer;
import org.deeplearning4j.nn.params.DefaultParamInitializer;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.activations.impl.ActivationIdentity;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.HostFloats;

/**
 * The token embedding kernel at run time: out[b, f, t] = W[id(b, t), f] (+ bias), times the step's mask, written
 * straight into a dense [mb, units, T] array (DL4J's layer gathers rows and hands on a permuted view, which the next
 * layer must copy); the backward pass adds each step's gradient into its token's row of dW. Java loops throughout.
 */
public class TokenEmbeddingLayer extends EmbeddingSequenceLayer {

    private float[] ids = new float[0];
    private int[] tokens = new int[0];
    private float[] weights = new float[0];
    private float[] values = new float[0];
    private float[] stepMask = new float[0];
    private int mb = -1;
    private int length = -1;

    public TokenEmbeddingLayer(NeuralNetConfiguration conf, DataType dataType) {
        super(conf, dataType);
    }

    private boolean own() {
        return layerConf().getActivationFn() instanceof ActivationIdentity
                && (input.rank() == 2 || input.rank() == 3 && input.size(1) == 1);
    }

    private int vocabulary() {
        return (int) layerConf().getNIn();
    }

    private int units() {
        return (int) layerConf().getNOut();
    }

    @Override
    public INDArray activate(boolean training, LayerWorkspaceMgr workspaceMgr) {
        assertInputSet(false);
        if (!own()) {
            return super.activate(training, workspaceMgr);
        }
        mb = (int) input.size(0);
        length = (int) input.size(input.rank() - 1);
        if (!layerConf().isInferInputLength() && length != layerConf().getInputLength()) {
            throw new DL4JInvalidInputException(
                    "TokenEmbedding" + name() + ": sequences of " + layerConf().getInputLength()
                            + " tokens expected, got input of shape " + Arrays.toString(input.shape()));
        }
        int n = mb * length;
        int v = vocabulary();
        int c = units();
        ids = HostFloats.atLeast(ids, n);
        HostFloats.read(input, ids);
        tokens = tokens.length >= n ? tokens : new int[n];
        for (int i = 0; i < n; i++) {
            int id = (int) ids[i];
            if (id < 0 || id >= v || id != ids[i]) {
                throw new DL4JInvalidInputException("TokenEmbedding" + name() + ": token id " + ids[i] + " at " + i
                        + " is not in the vocabulary 0.." + (v - 1));
            }
            tokens[i] = id;
        }
        readMask(n);
        INDArray w = getParam(DefaultParamInitializer.WEIGHT_KEY);
        weights = HostFloats.atLeast(weights, (long) v * c);
        HostFloats.read(w.ordering() == 'f' ? w.transpose() : w, weights);
        // weights now row-major [units, vocabulary] when W is 'f', else [vocabulary, units]
        boolean byUnit = w.ordering() == 'f';
        float[] out = values = HostFloats.atLeast(values, (long) n * c);
        float[] bias = new float[c];
        if (layerConf().hasBias()) {
            HostFloats.read(getParam(DefaultParamInitializer.BIAS_KEY), bias);
        }
        for (int b = 0; b < mb; b++) {
            for (int f = 0; f < c; f++) {
                int o = (b * c + f) * length;
                int row = b * length;
                float bf = bias[f];
                for (int s = 0; s < length; s++) {
                    int id = tokens[row + s];
                    out[o + s] = ((byUnit ? weights[f * v + id] : weights[id * c + f]) + bf) * stepMask[row + s];
                }
            }
        }
        INDArray ret = workspaceMgr.createUninitialized(
                ArrayType.ACTIVATIONS, DataType.FLOAT, new long[] {mb, c, length}, 'c');
        HostFloats.write(out, ret);
        return ret;
    }

    private void readMask(int n) {
        stepMask = HostFloats.atLeast(stepMask, n);
        if (maskArray == null) {
            Arrays.fill(stepMask, 0, n, 1f);
            return;
        }
        if (maskArray.length() != n) {
            throw new IllegalStateException(
                    "TokenEmbedding" + name() + ": the mask " + Arrays.toString(maskArray.shape())
                            + " does not match the tokens " + Arrays.toString(input.shape()));
        }
        HostFloats.read(maskArray, stepMask);
    }

    @Override
    public Pair<Gradient, INDArray> backpropGradient(INDArray epsilon, LayerWorkspaceMgr workspaceMgr) {
        assertInputSet(true);
        if (!own()) {
            return super.backpropGradient(epsilon, workspaceMgr);
        }
        int c = units();
        int v = vocabulary();
        if (epsilon.rank() != 3 || epsilon.size(0) != mb || epsilon.size(1) != c || epsilon.size(2) != length) {
            throw new IllegalStateException(
                    "TokenEmbedding" + name() + ": backward pass without the forward pass of this batch");
        }
        int n = mb * length;
        float[] e = values = HostFloats.atLeast(values, (long) n * c);
        HostFloats.read(epsilon, e);
        INDArray dW = gradientViews.get(DefaultParamInitializer.WEIGHT_KEY);
        boolean byUnit = dW.ordering() == 'f';
        float[] g = weights;
        Arrays.fill(g, 0, v * c, 0f);
        float[] db = new float[c];
        for (int b = 0; b < mb; b++) {
            for (int f = 0; f < c; f++) {
                int o = (b * c + f) * length;
                int row = b * length;
                float sum = 0;
                for (int s = 0; s < length; s++) {
                    float d = e[o + s] * stepMask[row + s];
                    int id = tokens[row + s];
                    g[byUnit ? f * v + id : id * c + f] += d;
                    sum += d;
                }
                db[f] += sum;
            }
        }
        HostFloats.write(g, byUnit ? dW.transpose() : dW);
        Gradient ret = new DefaultGradient();
        ret.gradientForVariable().put(DefaultParamInitializer.WEIGHT_KEY, dW);
        if (layerConf().hasBias()) {
            INDArray dbView = gradientViews.get(DefaultParamInitializer.BIAS_KEY);
            HostFloats.write(db, dbView);
            ret.gradientForVariable().put(DefaultParamInitializer.BIAS_KEY, dbView);
        }
        return new Pair<>(ret, null);
    }

    private String name() {
        String n = layerConf().getLayerName();
        return n == null ? "" : " \"" + n + "\"";
    }
}
