package org.traindeck.engine.parallel;

import java.util.Arrays;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.concurrency.AffinityManager;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The CUDA-only part of multi-GPU training: a copy-and-compare self-test of peer-to-peer access before it is enabled
 * (broken P2P can silently return zeros on a GPU-to-GPU copy). Only ever called with the CUDA backend loaded.
 */
public final class CudaPeerAccess {

    private CudaPeerAccess() {}

    /**
     * Copies a known array from the first of the placement's devices to each of the others and compares it on the
     * host. Enables cross-device access when every copy is exact, else turns it off; returns null on success or what
     * went wrong.
     */
    public static String selfTestAndConfigure(DevicePlacement placement) {
        AffinityManager affinity = Nd4j.getAffinityManager();
        if (!affinity.isCrossDeviceAccessSupported()) {
            affinity.allowCrossDeviceAccess(false);
            return "this system does not support cross-device access";
        }
        Integer original = affinity.getDeviceForCurrentThread();
        try {
            affinity.unsafeSetDevice(placement.ordinal(0));
            INDArray source = Nd4j.linspace(1, 4096, 4096, DataType.FLOAT);
            float[] expected = source.toFloatVector();
            for (int w = 1; w < placement.workers(); w++) {
                INDArray copy = affinity.replicateToDevice(placement.ordinal(w), source);
                if (!Arrays.equals(expected, copy.toFloatVector())) {
                    affinity.allowCrossDeviceAccess(false);
                    return "a copy from " + placement.deviceIds().get(0) + " to "
                            + placement.deviceIds().get(w) + " came back wrong: peer-to-peer access is broken here";
                }
            }
            affinity.allowCrossDeviceAccess(true);
            return null;
        } catch (RuntimeException e) {
            affinity.allowCrossDeviceAccess(false);
            return "the peer-to-peer self-test failed: " + e.getMessage();
        } finally {
            if (original != null) {
                affinity.unsafeSetDevice(original);
            }
        }
    }
}
