package org.traindeck.engine.train;

import java.util.ArrayList;
import java.util.List;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.devices.DeviceResolver;
import org.traindeck.engine.parallel.CudaDeviceOrder;

/** The devices a run will use, resolved against this machine and this build's ND4J backend before anything is created. */
final class RunDevices {

    private RunDevices() {}

    /**
     * Resolves the config's devices against the machine before anything is created. GPU indices that do not exist,
     * are hidden by CUDA_VISIBLE_DEVICES or need a GPU backend this build lacks are refused with the reason.
     */
    static DeviceResolver.Resolved resolve(DeviceSelection devices, DeviceDiscovery discovery) {
        if (devices.kind() == DeviceSelection.Kind.CPU) {
            return DeviceResolver.resolve(devices, null, null);
        }
        DeviceResolver.Resolved resolved =
                DeviceResolver.resolve(devices, discovery.discover(), discovery.cudaVisibleDevices());
        if (!resolved.isCpu() && "cpu".equals(Nd4jRuntime.backendKind())) {
            if (devices.kind() == DeviceSelection.Kind.ALL_GPUS) {
                List<String> warnings = new ArrayList<>(resolved.warnings());
                warnings.add(
                        "devices \"all\": this TrainDeck build uses ND4J's CPU backend, so the GPUs are not used: training on the CPU (build with mvn -Pcuda for GPUs)");
                return DeviceResolver.Resolved.cpu(1, warnings);
            }
            throw new InvalidConfigException(
                    "devices",
                    "asks for GPU " + devices.gpuIndices()
                            + ", but this TrainDeck build uses ND4J's CPU backend (nd4j-native): use \"cpu\", or build with the cuda profile (mvn -Pcuda)");
        }
        if (!resolved.isCpu()) {
            String warning = CudaDeviceOrder.ensurePciBusOrder(Nd4jRuntime.isLoaded());
            if (warning != null) {
                List<String> warnings = new ArrayList<>(resolved.warnings());
                warnings.add(warning);
                return new DeviceResolver.Resolved(
                        resolved.gpus(), resolved.cpuWorkers(), warnings, resolved.cudaOrdinals());
            }
        }
        return resolved;
    }
}
