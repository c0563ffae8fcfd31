package org.traindeck.engine.model.kernels.conv;

import static org.deeplearning4j.nn.params.BatchNormalizationParamInitializer.BETA;
import static org.deeplearning4j.nn.params.BatchNormalizationParamInitializer.GAMMA;
import static org.deeplearning4j.nn.params.BatchNormalizationParamInitializer.GLOBAL_LOG_STD;
import static org.deeplearning4j.nn.params.BatchNormalizationParamInitializer.GLOBAL_MEAN;
import static org.deeplearning4j.nn.params.BatchNormalizationParamInitializer.GLOBAL_VAR;

import java.util.Map;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.gradient.DefaultGradient;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.HostFloats;

/**
 * One training step of the fused batch norm as a DL4J layer sees it: the forward pass on the layer's parameters,
 * and the backward pass's gradient, whose running-statistics entries are DL4J's "distributed safe" updates (the
 * view holds {@code old − new}, the updater is NoOp and the step subtracts it, averaged over its micro-batches), as
 * DL4J's BatchNormalization and {@link SyncBatchNormLayer} write them.
 */
final class BatchNormKernelGradients {

    private static final double ONE_ON_2LOGE_10 = 1.0 / (2 * Math.log(10.0));

    private BatchNormKernelGradients() {}

    static INDArray forward(
            BatchNormPass pass,
            INDArray input,
            BatchNormalization conf,
            Map<String, INDArray> params,
            BatchNormPass.Link link,
            LayerWorkspaceMgr mgr) {
        int c = (int) input.size(1);
        return pass.forward(input, values(params.get(GAMMA), c), values(params.get(BETA), c), conf.getEps(), link, mgr);
    }

    static Pair<Gradient, INDArray> backward(
            BatchNormPass pass,
            INDArray input,
            INDArray epsilon,
            BatchNormalization conf,
            Map<String, INDArray> params,
            Map<String, INDArray> gradientViews,
            BatchNormPass.Link link,
            LayerWorkspaceMgr mgr) {
        int c = (int) input.size(1);
        float[] dGamma = new float[c];
        float[] dBeta = new float[c];
        INDArray dx = pass.backward(input, epsilon, values(params.get(GAMMA), c), dGamma, dBeta, link, mgr);
        Gradient gradient = new DefaultGradient();
        INDArray dGammaView = gradientViews.get(GAMMA);
        INDArray dBetaView = gradientViews.get(BETA);
        HostFloats.write(dGamma, dGammaView);
        HostFloats.write(dBeta, dBetaView);
        gradient.setGradientFor(GAMMA, dGammaView);
        gradient.setGradientFor(BETA, dBetaView);
        runningStatistics(pass, conf, params, gradientViews, gradient);
        return new Pair<>(gradient, dx);
    }

    private static void runningStatistics(
            BatchNormPass pass,
            BatchNormalization conf,
            Map<String, INDArray> params,
            Map<String, INDArray> gradientViews,
            Gradient gradient) {
        double decay = conf.getDecay();
        double[] batchMean = pass.batchMean();
        double[] batchVar = pass.batchVariance();
        double[] mean = params.get(GLOBAL_MEAN).toDoubleVector();
        double[] dMean = new double[mean.length];
        for (int i = 0; i < mean.length; i++) {
            dMean[i] = (mean[i] - batchMean[i]) * (1 - decay);
        }
        assign(gradientViews.get(GLOBAL_MEAN), dMean);
        gradient.setGradientFor(GLOBAL_MEAN, gradientViews.get(GLOBAL_MEAN));
        String key = conf.isUseLogStd() ? GLOBAL_LOG_STD : GLOBAL_VAR;
        double[] held = params.get(key).toDoubleVector();
        double[] d = new double[held.length];
        for (int i = 0; i < d.length; i++) {
            if (conf.isUseLogStd()) {
                double var = Math.pow(Math.pow(10, held[i]), 2);
                double next = var * decay + batchVar[i] * (1 - decay);
                d[i] = Math.log(var / next) * ONE_ON_2LOGE_10;
            } else {
                d[i] = (held[i] - batchVar[i]) * (1 - decay);
            }
        }
        assign(gradientViews.get(key), d);
        gradient.setGradientFor(key, gradientViews.get(key));
    }

    private static void assign(INDArray view, double[] values) {
        float[] f = new float[values.length];
        for (int i = 0; i < f.length; i++) {
            f[i] = (float) values[i];
        }
        HostFloats.write(f, view);
    }

    private static float[] values(INDArray param, int n) {
        float[] out = new float[n];
        HostFloats.read(param, out);
        return out;
    }
}
