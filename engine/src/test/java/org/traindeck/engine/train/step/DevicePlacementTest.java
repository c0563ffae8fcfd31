package org.traindeck.engine.train.step;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.traindeck.engine.api.devices.DeviceInventory;
import org.traindeck.engine.api.devices.GpuInfo;
import org.traindeck.engine.api.devices.HostInfo;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.devices.DeviceResolver;
import org.traindeck.engine.model.ModelCompiler;
import org.traindeck.engine.model.ModelInput;
import org.traindeck.engine.model.OneDnnHelpers;
import org.traindeck.engine.parallel.DeviceAffinity;
import org.traindeck.engine.parallel.DevicePlacement;
import org.traindeck.engine.parallel.TierFailure;

/**
 * The GPUs a user picks are the GPUs that train: nvidia-smi's numbering (CUDA_VISIBLE_DEVICES respected) becomes CUDA
 * ordinals, and each replica's thread is bound to its own. The CUDA calls are behind {@link DeviceAffinity}, recorded
 * here by a fake, so this runs without a GPU (the replicas themselves are real DL4J models on the CPU backend).
 */
class DevicePlacementTest {

    private static final DeviceInventory FOUR_GPUS = new DeviceInventory(
            new HostInfo("cpu", 8, 16, 64000, 60000),
            List.of(gpu(0, "GPU-aaaa"), gpu(1, "GPU-bbbb"), gpu(2, "GPU-cccc"), gpu(3, "GPU-dddd")),
            null,
            List.of());

    private static GpuInfo gpu(int index, String uuid) {
        return new GpuInfo(index, uuid, "Test GPU", "0000:0" + index + ":00.0", 24000L, 0L, 0.0, 30.0, 50.0);
    }

    /** Records which device each thread binds itself to. */
    private static final class RecordingAffinity implements DeviceAffinity {
        final List<String> attached = Collections.synchronizedList(new ArrayList<>());
        final int devices;

        RecordingAffinity(int devices) {
            this.devices = devices;
        }

        @Override
        public int deviceCount() {
            return devices;
        }

        @Override
        public void attachCurrentThread(int device) {
            attached.add(Thread.currentThread().getName() + "->" + device);
        }

        @Override
        public void allowCrossDeviceAccess(boolean allowed) {}
    }

    @Test
    void pickedGpusMapToTheirCudaOrdinalsWithAndWithoutCudaVisibleDevices() {
        DeviceSelection oneAndThree = DeviceSelection.gpus(List.of(1, 3));

        assertThat(DeviceResolver.resolve(oneAndThree, FOUR_GPUS, null).cudaOrdinals())
                .containsExactly(1, 3);
        // CUDA numbers the visible GPUs in the order CUDA_VISIBLE_DEVICES lists them
        assertThat(DeviceResolver.resolve(oneAndThree, FOUR_GPUS, "3,1").cudaOrdinals())
                .containsExactly(1, 0);
        assertThat(DeviceResolver.resolve(DeviceSelection.gpus(List.of(3)), FOUR_GPUS, "GPU-cccc,GPU-dddd")
                        .cudaOrdinals())
                .containsExactly(1);
        assertThat(DeviceResolver.resolve(DeviceSelection.ALL, FOUR_GPUS, "2,0").cudaOrdinals())
                .containsExactly(0, 1);
        assertThat(DeviceResolver.resolve(DeviceSelection.ALL, FOUR_GPUS, "2,0").deviceIds())
                .containsExactly("gpu2", "gpu0");
    }

    @Test
    void eachReplicaRunsOnItsOwnThreadBoundToItsGpu() {
        DeviceResolver.Resolved picked = DeviceResolver.resolve(DeviceSelection.gpus(List.of(1, 3)), FOUR_GPUS, null);
        RecordingAffinity affinity = new RecordingAffinity(4);
        DevicePlacement placement = DevicePlacement.of(picked, affinity);
        assertThat(placement.sharedMemory()).isFalse();
        ComputationGraph master = ModelCompiler.build(
                new ModelConfig.Mlp(List.of(4), ModelConfig.Activation.RELU, 0),
                new ModelInput(InputType.feedForward(3), Task.CLASSIFICATION, 2),
                1);

        placement.attachCurrentThread(0);
        try (ReplicaSet replicas = new ReplicaSet(master, placement, "t", net -> {})) {
            List<String> ranOn = replicas.onReplicas(w -> Thread.currentThread().getName());

            assertThat(affinity.attached)
                    .containsExactly(Thread.currentThread().getName() + "->1", "traindeck-replica-1-t->3");
            assertThat(ranOn).containsExactly(Thread.currentThread().getName(), "traindeck-replica-1-t");
            // replicas on other GPUs hold their own copy, refreshed from the master after each update
            assertThat(replicas.replica(1).params())
                    .isNotSameAs(master.params())
                    .isEqualTo(master.params());
            master.params().addi(1);
            replicas.broadcastParameters();
            assertThat(replicas.replica(1).params()).isEqualTo(master.params());
        }
    }

    @Test
    void cpuWorkersShareTheMastersParameters() {
        DevicePlacement placement =
                DevicePlacement.of(DeviceResolver.Resolved.cpu(3, List.of()), new RecordingAffinity(1));
        ComputationGraph master = ModelCompiler.build(
                new ModelConfig.Mlp(List.of(4), ModelConfig.Activation.RELU, 0),
                new ModelInput(InputType.feedForward(3), Task.CLASSIFICATION, 2),
                1);
        try (ReplicaSet replicas = new ReplicaSet(master, placement, "c", net -> {})) {
            assertThat(placement.deviceIds()).containsExactly("cpu0", "cpu1", "cpu2");
            master.params().addi(1);
            assertThat(replicas.replica(2).params()).isEqualTo(master.params());
            assertThat(replicas.replica(2).getGradientsViewArray()).isNotSameAs(master.getGradientsViewArray());
        }
    }

    @Test
    void everyReplicaIsPreparedAsTheMasterIs() {
        DevicePlacement placement =
                DevicePlacement.of(DeviceResolver.Resolved.cpu(2, List.of()), new RecordingAffinity(1));
        ComputationGraph master = ModelCompiler.build(
                new ModelConfig.LeNet(List.of(4), 3, 8, ModelConfig.Activation.RELU, 0, false),
                new ModelInput(InputType.convolutional(8, 8, 1), Task.CLASSIFICATION, 2),
                1);
        OneDnnHelpers.install(master);
        try (ReplicaSet replicas = new ReplicaSet(master, placement, "h", OneDnnHelpers::install)) {
            assertThat(OneDnnHelpers.layersWithHelpers(replicas.replica(1))).containsExactly("conv0", "pool0");
        }
    }

    @Test
    void aGpuThatNd4jDoesNotSeeIsRefusedClearly() {
        DeviceResolver.Resolved picked = DeviceResolver.resolve(DeviceSelection.gpus(List.of(1, 3)), FOUR_GPUS, null);
        assertThatThrownBy(() -> DevicePlacement.of(picked, new RecordingAffinity(2)))
                .isInstanceOf(TierFailure.class)
                .hasMessageContaining("gpu3 maps to CUDA device 3, but ND4J sees 2 device(s)");
    }
}
