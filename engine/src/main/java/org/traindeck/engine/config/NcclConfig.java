package org.traindeck.engine.config;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The NCCL workaround toggles the multi-GPU guides recommend, plus custom environment variables. They are set in
 * the process's real environment before ND4J loads. Be aware: DL4J's ParallelWrapper does not use NCCL (it averages
 * over CUDA peer-to-peer copies or through the host), so only some have an effect through a DL4J equivalent:
 * NCCL_P2P_DISABLE=1 turns off cross-device access, and NCCL_TIMEOUT becomes TrainDeck's step watchdog.
 */
public record NcclConfig(Map<String, String> toggles, Map<String, String> custom) {

    /** Each known toggle with its recommended value and what it does. */
    public record Toggle(String name, String recommended, String explanation) {}

    public static final List<Toggle> KNOWN = List.of(
            new Toggle("NCCL_TIMEOUT", "1800", "seconds a collective may hang; TrainDeck uses it as its step watchdog"),
            new Toggle(
                    "NCCL_BLOCKING_WAIT", "1", "wait on collectives so a timeout raises an error instead of hanging"),
            new Toggle("NCCL_IB_DISABLE", "1", "do not use InfiniBand"),
            new Toggle("NCCL_P2P_DISABLE", "1", "no GPU-to-GPU peer copies; in DL4J: cross-device access off"),
            new Toggle("NCCL_SHM_DISABLE", "0", "keep shared-memory transport between processes"),
            new Toggle("NCCL_SOCKET_IFNAME", "eth0,lo", "network interfaces for socket transport"),
            new Toggle("NCCL_DEBUG", "WARN", "NCCL's log level"),
            new Toggle("NCCL_NSOCKS_PERTHREAD", "4", "sockets per helper thread"),
            new Toggle("NCCL_SOCKET_NTHREADS", "2", "helper threads per connection"));

    public NcclConfig {
        toggles = Collections.unmodifiableMap(new LinkedHashMap<>(toggles));
        custom = Collections.unmodifiableMap(new LinkedHashMap<>(custom));
    }

    public static Toggle known(String name) {
        return KNOWN.stream().filter(t -> t.name().equals(name)).findFirst().orElse(null);
    }

    /** Every variable to set, toggles first. */
    public Map<String, String> all() {
        Map<String, String> all = new LinkedHashMap<>(toggles);
        all.putAll(custom);
        return all;
    }

    /** As a config writes it: the toggles, then the custom variables under "custom" when there are any. */
    @JsonValue
    Map<String, Object> json() {
        Map<String, Object> json = new LinkedHashMap<>(toggles);
        if (!custom.isEmpty()) {
            json.put("custom", custom);
        }
        return json;
    }

    public boolean p2pDisabled() {
        return "1".equals(toggles.get("NCCL_P2P_DISABLE"));
    }

    /** NCCL_TIMEOUT in seconds, or 0 when unset. */
    public int timeoutSeconds() {
        String t = toggles.get("NCCL_TIMEOUT");
        return t == null ? 0 : Integer.parseInt(t);
    }
}
