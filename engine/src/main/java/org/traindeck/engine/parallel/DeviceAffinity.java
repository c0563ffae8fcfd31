package org.traindeck.engine.parallel;

import org.nd4j.linalg.factory.Nd4j;

/**
 * The ND4J calls that place work on a device, behind one small interface so that the placement of replicas and
 * threads is testable without a GPU. On the CPU backend ND4J has one device and attaching is a no-op.
 */
public interface DeviceAffinity {

    /** The devices ND4J can use (CUDA ordinals 0..n-1 on a CUDA build; 1 on the CPU backend). */
    int deviceCount();

    /** Makes every ND4J array the calling thread creates, and every op it runs, live on {@code device}. */
    void attachCurrentThread(int device);

    /** Whether arrays may be copied directly between devices (peer-to-peer), or go through the host. */
    void allowCrossDeviceAccess(boolean allowed);

    /** ND4J's own affinity manager. */
    static DeviceAffinity nd4j() {
        return new DeviceAffinity() {
            @Override
            public int deviceCount() {
                return Nd4j.getAffinityManager().getNumberOfDevices();
            }

            @Override
            public void attachCurrentThread(int device) {
                // what ParallelWrapper's own workers do: binds the calling thread (ND4J's affinity map and the CUDA
                // context)
                Nd4j.getAffinityManager().unsafeSetDevice(device);
            }

            @Override
            public void allowCrossDeviceAccess(boolean allowed) {
                Nd4j.getAffinityManager().allowCrossDeviceAccess(allowed);
            }
        };
    }
}
