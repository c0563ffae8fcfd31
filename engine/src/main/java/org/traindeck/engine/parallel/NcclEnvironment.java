package org.traindeck.engine.parallel;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.traindeck.engine.api.devices.NcclReport;
import org.traindeck.engine.config.NcclConfig;

/**
 * Puts a config's NCCL toggles and custom variables into the process environment and reports, per variable,
 * whether it took effect: before ND4J loads it is {@link NcclReport.Status#APPLIED} (or MAPPED where DL4J has an
 * equivalent); after, it is set but {@link NcclReport.Status#NEEDS_RESTART}, since native libraries read their
 * settings when they load.
 */
public final class NcclEnvironment {

    /**
     * What was set while ND4J was not yet loaded: the values its native libraries read when it loaded. A later run
     * with the same value finds it in effect (the app loads ND4J to show a model's summary before the first run).
     */
    private static final Map<String, String> SET_BEFORE_LOAD = new ConcurrentHashMap<>();

    private NcclEnvironment() {}

    public static NcclReport apply(NcclConfig config, boolean backendAlreadyLoaded) {
        List<NcclReport.Entry> entries = new ArrayList<>();
        for (Map.Entry<String, String> v : config.all().entrySet()) {
            String name = v.getKey();
            String value = v.getValue();
            boolean inEffect = !backendAlreadyLoaded || value.equals(SET_BEFORE_LOAD.get(name));
            String failure = NativeEnvironment.set(name, value);
            if (failure == null && !value.equals(NativeEnvironment.get(name))) {
                failure = "the value read back differs";
            }
            if (failure != null) {
                if (!backendAlreadyLoaded) {
                    SET_BEFORE_LOAD.remove(name);
                }
                entries.add(new NcclReport.Entry(name, value, NcclReport.Status.FAILED, failure));
                continue;
            }
            String mapping = mapping(name, value);
            String ncclNote = mapping == null && name.startsWith("NCCL_")
                    ? " (DL4J's ParallelWrapper does not use NCCL, so it has no effect on DL4J itself)"
                    : "";
            NcclReport.Status status;
            String detail;
            if (!backendAlreadyLoaded) {
                SET_BEFORE_LOAD.put(name, value);
            }
            if (!inEffect) {
                status = NcclReport.Status.NEEDS_RESTART;
                detail =
                        "set in the environment, but ND4J is already loaded in this process: restart TrainDeck for native "
                                + "libraries to read it" + (mapping == null ? ncclNote : "; " + mapping);
            } else if (mapping != null) {
                status = NcclReport.Status.MAPPED;
                detail = "set in the environment; " + mapping;
            } else {
                status = NcclReport.Status.APPLIED;
                detail = "set in the environment before ND4J loaded" + ncclNote;
            }
            entries.add(new NcclReport.Entry(name, value, status, detail));
        }
        return new NcclReport(entries);
    }

    /** The DL4J equivalent of a toggle, worded for people; null when there is none. */
    static String mapping(String name, String value) {
        return switch (name) {
            case "NCCL_P2P_DISABLE" ->
                "1".equals(value)
                        ? "DL4J equivalent: cross-device (peer-to-peer) access is turned off, and the averaging-with-P2P tier is skipped"
                        : null;
            case "NCCL_TIMEOUT" ->
                "DL4J equivalent: TrainDeck's step watchdog stops a run when no step completes within " + value + " s";
            default -> null;
        };
    }
}
