package org.traindeck.engine.devices;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.traindeck.engine.api.devices.DeviceInventory;
import org.traindeck.engine.api.devices.GpuInfo;
import org.traindeck.engine.api.devices.HostInfo;

/**
 * Builds the {@link DeviceInventory}: the host from the OS, GPUs from nvidia-smi, with the OS's list of graphics
 * cards to fill gaps and to explain a missing GPU. Always answers: with no usable GPU the CPU is the device, and
 * the inventory says why.
 */
public final class DeviceDiscovery {

    /** Where Linux shows the CPU packages' RAPL energy counters. */
    public static final Path SYSTEM_POWERCAP = Path.of("/sys/class/powercap");

    private final NvidiaSmi smi;
    private final HostProbe probe;
    private final Path powercapRoot;
    private final String cudaVisibleDevices;
    private final boolean cudaBuild;

    public DeviceDiscovery(NvidiaSmi smi, HostProbe probe) {
        this(smi, probe, SYSTEM_POWERCAP);
    }

    /** @param powercapRoot where a run reads the CPU's energy counters (a test's fake folder) */
    public DeviceDiscovery(NvidiaSmi smi, HostProbe probe, Path powercapRoot) {
        this(smi, probe, powercapRoot, System.getenv("CUDA_VISIBLE_DEVICES"));
    }

    /** @param cudaVisibleDevices CUDA_VISIBLE_DEVICES as this process has it (null when unset) */
    public DeviceDiscovery(NvidiaSmi smi, HostProbe probe, Path powercapRoot, String cudaVisibleDevices) {
        this(smi, probe, powercapRoot, cudaVisibleDevices, BackendBuild.cuda());
    }

    /** @param cudaBuild whether this is the CUDA build, which trains only on GPUs (a test's stands in for it) */
    public DeviceDiscovery(
            NvidiaSmi smi, HostProbe probe, Path powercapRoot, String cudaVisibleDevices, boolean cudaBuild) {
        this.smi = smi;
        this.probe = probe;
        this.powercapRoot = powercapRoot;
        this.cudaVisibleDevices = cudaVisibleDevices;
        this.cudaBuild = cudaBuild;
    }

    /** The nvidia-smi a run's telemetry and energy meter use. */
    public NvidiaSmi smi() {
        return smi;
    }

    public HostProbe probe() {
        return probe;
    }

    public Path powercapRoot() {
        return powercapRoot;
    }

    /** CUDA_VISIBLE_DEVICES as the GPUs a run may use are read against it (null when unset). */
    public String cudaVisibleDevices() {
        return cudaVisibleDevices;
    }

    public static DeviceDiscovery system() {
        return new DeviceDiscovery(NvidiaSmi.system(), new OshiHostProbe());
    }

    /** This host alone (no nvidia-smi): what a CPU run has. */
    public HostInfo host() {
        return probe.host();
    }

    public DeviceInventory discover() {
        HostInfo host = probe.host();
        List<HostProbe.GraphicsCard> cards = probe.graphicsCards();
        List<HostProbe.GraphicsCard> nvidia =
                cards.stream().filter(DeviceDiscovery::isNvidia).toList();
        List<String> notes = new ArrayList<>();
        List<GpuInfo> gpus;
        String reason = null;
        try {
            gpus = smi.queryGpus();
            if (gpus.isEmpty()) {
                reason = "nvidia-smi lists no GPU";
            }
        } catch (NvidiaSmiException e) {
            gpus = List.of();
            reason = e.getMessage();
        }
        if (gpus.isEmpty() && !nvidia.isEmpty()) {
            reason += "; the system reports " + nvidia.size() + " NVIDIA card(s) ("
                    + String.join(
                            ", ",
                            nvidia.stream().map(HostProbe.GraphicsCard::name).toList())
                    + "): check the NVIDIA driver";
        } else if (gpus.isEmpty() && reason != null) {
            reason += "; no NVIDIA card is visible to the system either";
        }
        List<GpuInfo> merged = new ArrayList<>();
        for (GpuInfo gpu : gpus) {
            if (gpu.memoryTotalMiB() == null) {
                HostProbe.GraphicsCard card = matching(gpu, nvidia);
                if (card != null && card.vramBytes() > 0) {
                    gpu = gpu.withMemoryTotal(card.vramBytes() >> 20);
                    notes.add(gpu.id() + ": total memory from the OS (" + gpu.memoryTotalMiB()
                            + " MiB); nvidia-smi did not give it");
                }
            }
            merged.add(gpu);
        }
        String visibility = DeviceResolver.visibilityNote(merged, cudaVisibleDevices);
        if (visibility != null) {
            notes.add(visibility);
        }
        return new DeviceInventory(
                host,
                merged,
                gpus.isEmpty() ? reason : null,
                notes,
                cudaVisibleDevices,
                DeviceResolver.visible(merged, cudaVisibleDevices),
                cudaBuild);
    }

    private static boolean isNvidia(HostProbe.GraphicsCard card) {
        String s = (card.vendor() + " " + card.name()).toLowerCase(Locale.ROOT);
        return s.contains("nvidia");
    }

    /** The OS's card for a GPU: the same name, ignoring case and an "NVIDIA" prefix. */
    static HostProbe.GraphicsCard matching(GpuInfo gpu, List<HostProbe.GraphicsCard> cards) {
        if (gpu.name() == null) {
            return null;
        }
        String want = normalise(gpu.name());
        return cards.stream()
                .filter(c -> c.name() != null && normalise(c.name()).equals(want))
                .findFirst()
                .orElse(null);
    }

    private static String normalise(String name) {
        String n = name.toLowerCase(Locale.ROOT).replace("nvidia", "").replace("corporation", "");
        return n.replaceAll("[^a-z0-9]+", " ").strip();
    }
}
