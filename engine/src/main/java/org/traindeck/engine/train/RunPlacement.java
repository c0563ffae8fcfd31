package org.traindeck.engine.train;

import java.nio.file.Path;
import java.util.function.Consumer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.traindeck.engine.Version;
import org.traindeck.engine.api.devices.NcclReport;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.devices.DeviceResolver;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.model.OneDnnHelpers;
import org.traindeck.engine.parallel.DeviceAffinity;
import org.traindeck.engine.parallel.DevicePlacement;
import org.traindeck.engine.parallel.TierFailure;
import org.traindeck.engine.train.state.RunEvents;
import org.traindeck.engine.train.state.RunFailure;

/** Where a run computes: its devices set up and said in the run log, and what is done to every model it trains. */
final class RunPlacement {

    private RunPlacement() {}

    /** The chosen devices, the master model's thread attached to the first; what was set up is logged. */
    static DevicePlacement place(
            RunConfig config, DeviceResolver.Resolved devices, NcclReport nccl, RunEvents events, Path runDir) {
        Nd4jRuntime.init();
        DevicePlacement placement;
        try {
            placement = DevicePlacement.of(devices, DeviceAffinity.nd4j());
        } catch (TierFailure e) {
            throw new RunFailure(e.getMessage(), e);
        }
        // the master model and its arrays live on the first chosen device
        placement.attachCurrentThread(0);
        if (placement.sharedMemory()) {
            int each = Nd4jRuntime.shareThreads(placement.workers());
            if (placement.workers() > 1) {
                events.logLine(placement.workers() + " CPU workers, " + each + " native thread(s) each (of "
                        + Nd4jRuntime.threadBudget() + ": OMP_NUM_THREADS or one per physical core)");
            }
        }
        devices.warnings().forEach(w -> events.lifecycle(LifecycleEvent.Kind.WARNING, w));
        reportNccl(nccl, events);
        if (config.nccl().p2pDisabled()) {
            // the DL4J equivalent of NCCL_P2P_DISABLE=1
            placement.allowCrossDeviceAccess(false);
        }
        String cuda = devices.isCpu() ? "" : " (CUDA devices " + devices.cudaOrdinals() + ")";
        events.logLine("TrainDeck " + Version.get() + ", ND4J backend " + Nd4jRuntime.backendKind() + ", devices "
                + String.join(", ", placement.deviceIds()) + cuda + ", run folder " + runDir);
        return placement;
    }

    private static void reportNccl(NcclReport nccl, RunEvents events) {
        if (nccl == null) {
            return;
        }
        for (NcclReport.Entry e : nccl.entries()) {
            events.logLine("environment " + e.name() + "=" + e.value() + ": " + e.status() + " (" + e.detail() + ")");
            if (e.status() == NcclReport.Status.NEEDS_RESTART || e.status() == NcclReport.Status.FAILED) {
                events.lifecycle(LifecycleEvent.Kind.WARNING, e.name() + ": " + e.detail());
            }
        }
    }

    /** What is done to every model the run trains (replicas and rebuilt models included): oneDNN's layer helpers. */
    static Consumer<ComputationGraph> layerHelpers(RunConfig config, RunEvents events) {
        String unavailable = !config.performance().onednn()
                ? "off in the config (\"performance\": {\"onednn\": false})"
                : Nd4jRuntime.oneDnnUnavailableReason() != null
                        ? Nd4jRuntime.oneDnnUnavailableReason()
                        : OneDnnHelpers.unusableReason();
        if (unavailable != null) {
            events.logLine("oneDNN: not used, " + unavailable + "; convolutions run on DL4J's own path");
            return net -> {};
        }
        boolean[] logged = {false};
        return net -> {
            int layers = OneDnnHelpers.install(net);
            if (!logged[0] && layers > 0) {
                logged[0] = true;
                events.logLine("oneDNN: on for " + layers + " convolution and pooling layer(s)");
            }
        };
    }
}
