package org.traindeck.engine.parallel;

import java.util.List;
import org.traindeck.engine.devices.DeviceResolver;

/**
 * Where each data-parallel worker runs: worker {@code w} trains replica {@code w} on {@code deviceIds().get(w)}, which
 * is ND4J device {@code ordinal(w)}. GPUs are the ones the user picked (nvidia-smi's numbering, CUDA_VISIBLE_DEVICES
 * respected), mapped to CUDA ordinals by the device resolver. CPU workers are threads of one device and share memory,
 * so their replicas can share the master's parameters.
 */
public final class DevicePlacement {

    private final List<String> deviceIds;
    private final List<Integer> ordinals;
    private final boolean sharedMemory;
    private final DeviceAffinity affinity;

    private DevicePlacement(
            List<String> deviceIds, List<Integer> ordinals, boolean sharedMemory, DeviceAffinity affinity) {
        this.deviceIds = List.copyOf(deviceIds);
        this.ordinals = List.copyOf(ordinals);
        this.sharedMemory = sharedMemory;
        this.affinity = affinity;
    }

    /** The placement of a resolved device selection, checked against the devices ND4J sees. */
    public static DevicePlacement of(DeviceResolver.Resolved devices, DeviceAffinity affinity) {
        if (devices.isCpu()) {
            return new DevicePlacement(
                    devices.deviceIds(),
                    devices.deviceIds().stream().map(d -> 0).toList(),
                    true,
                    affinity);
        }
        int available = affinity.deviceCount();
        for (int w = 0; w < devices.gpus().size(); w++) {
            int ordinal = devices.cudaOrdinals().get(w);
            if (ordinal < 0 || ordinal >= available) {
                throw new TierFailure(
                        devices.gpus().get(w).id() + " maps to CUDA device " + ordinal + ", but ND4J sees " + available
                                + " device(s): was CUDA_VISIBLE_DEVICES changed after TrainDeck started?",
                        true,
                        null);
            }
        }
        return new DevicePlacement(devices.deviceIds(), devices.cudaOrdinals(), false, affinity);
    }

    public int workers() {
        return deviceIds.size();
    }

    public List<String> deviceIds() {
        return deviceIds;
    }

    public int ordinal(int worker) {
        return ordinals.get(worker);
    }

    /** CPU workers: replicas may share the master's parameter array instead of holding copies. */
    public boolean sharedMemory() {
        return sharedMemory;
    }

    /** Binds the calling thread to worker {@code worker}'s device, before it creates any array. */
    public void attachCurrentThread(int worker) {
        affinity.attachCurrentThread(ordinal(worker));
    }

    public void allowCrossDeviceAccess(boolean allowed) {
        affinity.allowCrossDeviceAccess(allowed);
    }
}
