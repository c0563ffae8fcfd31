package org.traindeck.engine.model.kernels;

import org.deeplearning4j.nn.conf.layers.FeedForwardLayer;

/**
 * Copies a DL4J layer configuration's common settings onto a kernel's configuration that subclasses it: DL4J's
 * configuration classes build only through their own builders, so a kernel takes the built reference layer's settings
 * instead (name, sizes, activation, initialisation, optimizer, regularisation, dropout, noise, constraints, clipping).
 */
public final class LayerSettings {

    private LayerSettings() {}

    public static void copy(FeedForwardLayer from, FeedForwardLayer to) {
        to.setLayerName(from.getLayerName());
        to.setIDropout(from.getIDropout());
        to.setConstraints(from.getConstraints());
        to.setActivationFn(from.getActivationFn());
        to.setWeightInitFn(from.getWeightInitFn());
        to.setBiasInit(from.getBiasInit());
        to.setGainInit(from.getGainInit());
        to.setRegularization(from.getRegularization());
        to.setRegularizationBias(from.getRegularizationBias());
        to.setIUpdater(from.getIUpdater());
        to.setBiasUpdater(from.getBiasUpdater());
        to.setWeightNoise(from.getWeightNoise());
        to.setGradientNormalization(from.getGradientNormalization());
        to.setGradientNormalizationThreshold(from.getGradientNormalizationThreshold());
        to.setNIn(from.getNIn());
        to.setNOut(from.getNOut());
        to.setTimeDistributedFormat(from.getTimeDistributedFormat());
    }
}
