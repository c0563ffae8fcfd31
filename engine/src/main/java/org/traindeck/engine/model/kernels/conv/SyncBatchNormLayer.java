package org.traindeck.engine.model.kernels.conv;

import java.util.Arrays;
import org.deeplearning4j.nn.conf.CNN2DFormat;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.gradient.DefaultGradient;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.layers.normalization.BatchNormalization;
import org.deeplearning4j.nn.params.BatchNormalizationParamInitializer;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.impl.broadcast.BroadcastAddOp;
import org.nd4j.linalg.api.ops.impl.broadcast.BroadcastMulOp;
import org.nd4j.linalg.api.ops.impl.broadcast.BroadcastSubOp;
import org.nd4j.linalg.factory.Nd4j;

/**
 * {@link SyncBatchNorm} at run time. While a synchronous step is under way ({@link BatchStatsExchange#active()}) a
 * training forward pass normalises with the mean and biased variance of every replica's micro-batch of the round, and
 * the backward pass exchanges Σ dy and Σ dy·x̂ so that the input gradient is that of the whole round's batch, as
 * PyTorch's SyncBatchNorm does; gamma's and beta's gradients stay this replica's share (the step sums them), and the
 * running statistics move towards the synchronized ones, as DL4J's BatchNorm moves them towards its batch's. Otherwise
 * (one device, inference, no exchange) it is DL4J's BatchNorm, unchanged.
 */
public class SyncBatchNormLayer extends BatchNormalization {

    private static final double ONE_ON_2LOGE_10 = 1.0 / (2 * Math.log(10.0));

    private BatchStatsExchange exchange;
    private boolean synced;
    private INDArray normalised;
    private double[] inverseStd;
    private double[] batchMean;
    private double[] batchVar;
    private long count;

    public SyncBatchNormLayer(NeuralNetConfiguration conf, DataType dataType) {
        super(conf, dataType);
    }

    /** The replica's link to the others (null: none, plain BatchNorm); set when the replicas of a step are built. */
    public void exchange(BatchStatsExchange newExchange) {
        this.exchange = newExchange;
    }

    @Override
    public INDArray activate(boolean training, LayerWorkspaceMgr mgr) {
        synced = training && exchange != null && exchange.active();
        if (!synced) {
            return super.activate(training, mgr);
        }
        assertInputSet(false);
        int rank = input.rank();
        if (rank != 2 && rank != 4) {
            throw new IllegalStateException(
                    "synchronized BatchNorm takes features [batch, channels] or images, not input of shape "
                            + Arrays.toString(input.shape()) + " " + layerId());
        }
        int ch = channelAxis(rank);
        int[] dims = reduceAxes(rank);
        INDArray out;
        try (MemoryWorkspace ignored = Nd4j.getWorkspaceManager().scopeOutOfWorkspaces()) {
            INDArray x = input.castTo(dataType);
            long local = x.length() / x.size(ch);
            double[] all = exchange.forward(
                    layerConf().getLayerName(),
                    local,
                    x.mean(dims).toDoubleVector(),
                    x.var(false, dims).toDoubleVector());
            int c = (int) x.size(ch);
            count = (long) all[0];
            batchMean = Arrays.copyOfRange(all, 1, 1 + c);
            batchVar = Arrays.copyOfRange(all, 1 + c, 1 + 2 * c);
            inverseStd = new double[c];
            double[] shift = new double[c];
            for (int i = 0; i < c; i++) {
                inverseStd[i] = 1 / Math.sqrt(batchVar[i] + layerConf().getEps());
                shift[i] = -batchMean[i];
            }
            normalised = x.dup(x.ordering());
            Nd4j.getExecutioner().exec(new BroadcastAddOp(normalised, vector(shift), normalised, ch));
            Nd4j.getExecutioner().exec(new BroadcastMulOp(normalised, vector(inverseStd), normalised, ch));
            out = normalised.dup(normalised.ordering());
            Nd4j.getExecutioner()
                    .exec(new BroadcastMulOp(
                            out,
                            getParam(BatchNormalizationParamInitializer.GAMMA).reshape(-1),
                            out,
                            ch));
            Nd4j.getExecutioner()
                    .exec(new BroadcastAddOp(
                            out,
                            getParam(BatchNormalizationParamInitializer.BETA).reshape(-1),
                            out,
                            ch));
        }
        return mgr.leverageTo(ArrayType.ACTIVATIONS, out);
    }

    @Override
    public Pair<Gradient, INDArray> backpropGradient(INDArray epsilon, LayerWorkspaceMgr mgr) {
        if (!synced) {
            return super.backpropGradient(epsilon, mgr);
        }
        synced = false;
        assertInputSet(true);
        int rank = epsilon.rank();
        int ch = channelAxis(rank);
        int[] dims = reduceAxes(rank);
        int c = inverseStd.length;
        INDArray dGamma = gradientViews.get(BatchNormalizationParamInitializer.GAMMA);
        INDArray dBeta = gradientViews.get(BatchNormalizationParamInitializer.BETA);
        INDArray dx;
        try (MemoryWorkspace ignored = Nd4j.getWorkspaceManager().scopeOutOfWorkspaces()) {
            INDArray dy = epsilon.castTo(dataType);
            INDArray localBeta = dy.sum(dims);
            INDArray localGamma = dy.mul(normalised).sum(dims);
            double[] sums = new double[3 * c];
            System.arraycopy(localBeta.toDoubleVector(), 0, sums, 0, c);
            System.arraycopy(localGamma.toDoubleVector(), 0, sums, c, c);
            System.arraycopy(normalised.sum(dims).toDoubleVector(), 0, sums, 2 * c, c);
            double[] total = exchange.backward(layerConf().getLayerName(), sums);
            double[] gamma = getParam(BatchNormalizationParamInitializer.GAMMA).toDoubleVector();
            double[] shift = new double[c];
            double[] meanDyXhat = new double[c];
            double[] scale = new double[c];
            for (int i = 0; i < c; i++) {
                double m = total[c + i] / count;
                // x̂'s own mean is 0 only up to the rounding of the float mean: keeping it gives the gradient of what
                // was computed
                shift[i] = total[i] / count - m * total[2 * c + i] / count;
                meanDyXhat[i] = -m;
                scale[i] = gamma[i] * inverseStd[i];
            }
            // dx = gamma/σ · (dy − mean(dy) − (x̂ − mean(x̂)) · mean(dy·x̂)), the means over the whole round's batch
            dx = normalised;
            Nd4j.getExecutioner().exec(new BroadcastMulOp(dx, vector(meanDyXhat), dx, ch));
            dx.addi(dy);
            Nd4j.getExecutioner().exec(new BroadcastSubOp(dx, vector(shift), dx, ch));
            Nd4j.getExecutioner().exec(new BroadcastMulOp(dx, vector(scale), dx, ch));
            dGamma.assign(localGamma.reshape(dGamma.shape()));
            dBeta.assign(localBeta.reshape(dBeta.shape()));
        }
        normalised = null;
        Gradient gradient = new DefaultGradient();
        gradient.setGradientFor(BatchNormalizationParamInitializer.GAMMA, dGamma);
        gradient.setGradientFor(BatchNormalizationParamInitializer.BETA, dBeta);
        runningStatisticsUpdate(gradient);
        return new Pair<>(gradient, mgr.leverageTo(ArrayType.ACTIVATION_GRAD, dx));
    }

    /**
     * DL4J's "distributed safe" running statistics: the gradient view holds {@code old − new}, the updater is NoOp and
     * the step subtracts it, averaged over the step's micro-batches (GradientUpdate).
     */
    private void runningStatisticsUpdate(Gradient gradient) {
        double decay = layerConf().getDecay();
        INDArray globalMean = getParam(BatchNormalizationParamInitializer.GLOBAL_MEAN);
        double[] mean = globalMean.toDoubleVector();
        double[] dMean = new double[mean.length];
        for (int i = 0; i < mean.length; i++) {
            dMean[i] = (mean[i] - batchMean[i]) * (1 - decay);
        }
        INDArray dMeanView = gradientViews.get(BatchNormalizationParamInitializer.GLOBAL_MEAN);
        dMeanView.assign(vector(dMean).reshape(dMeanView.shape()));
        gradient.setGradientFor(BatchNormalizationParamInitializer.GLOBAL_MEAN, dMeanView);
        if (layerConf().isUseLogStd()) {
            double[] log10Std =
                    getParam(BatchNormalizationParamInitializer.GLOBAL_LOG_STD).toDoubleVector();
            double[] d = new double[log10Std.length];
            for (int i = 0; i < d.length; i++) {
                double var = Math.pow(Math.pow(10, log10Std[i]), 2);
                double next = var * decay + batchVar[i] * (1 - decay);
                d[i] = Math.log(var / next) * ONE_ON_2LOGE_10;
            }
            INDArray view = gradientViews.get(BatchNormalizationParamInitializer.GLOBAL_LOG_STD);
            view.assign(vector(d).reshape(view.shape()));
            gradient.setGradientFor(BatchNormalizationParamInitializer.GLOBAL_LOG_STD, view);
        } else {
            double[] var =
                    getParam(BatchNormalizationParamInitializer.GLOBAL_VAR).toDoubleVector();
            double[] d = new double[var.length];
            for (int i = 0; i < d.length; i++) {
                d[i] = (var[i] - batchVar[i]) * (1 - decay);
            }
            INDArray view = gradientViews.get(BatchNormalizationParamInitializer.GLOBAL_VAR);
            view.assign(vector(d).reshape(view.shape()));
            gradient.setGradientFor(BatchNormalizationParamInitializer.GLOBAL_VAR, view);
        }
    }

    private int channelAxis(int rank) {
        return rank == 2 || layerConf().getCnn2DFormat() == CNN2DFormat.NCHW ? 1 : 3;
    }

    private int[] reduceAxes(int rank) {
        if (rank == 2) {
            return new int[] {0};
        }
        return layerConf().getCnn2DFormat() == CNN2DFormat.NCHW ? new int[] {0, 2, 3} : new int[] {0, 1, 2};
    }

    private INDArray vector(double[] values) {
        return Nd4j.createFromArray(values).castTo(dataType);
    }

    @Override
    public void clear() {
        super.clear();
        normalised = null;
        synced = false;
    }
}
