package org.traindeck.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import org.traindeck.engine.api.devices.NcclReport;
import org.traindeck.engine.config.NcclConfig;

/**
 * The NCCL tab's state: each known toggle (on or off, its value, its badge) and the custom variables, kept equal to
 * the config's "nccl" both ways; the badges say what the engine did with each at the last Start, or will do.
 */
public final class NcclViewModel {

    /** The toggles that help in containers (no InfiniBand, no peer-to-peer, sockets on eth0/lo, a timeout). */
    public static final Set<String> CONTAINER_SAFE = Set.of(
            "NCCL_TIMEOUT",
            "NCCL_BLOCKING_WAIT",
            "NCCL_IB_DISABLE",
            "NCCL_P2P_DISABLE",
            "NCCL_SHM_DISABLE",
            "NCCL_SOCKET_IFNAME",
            "NCCL_DEBUG");

    /** A toggle's badge: its text, its style class ("badge-ok", ...), and the explanation in its tooltip. */
    public record Badge(String text, String style, String detail) {
        static final Badge NONE = new Badge("", null, null);
    }

    /** One toggle's state. */
    public static final class Toggle {
        private final BooleanProperty enabled = new SimpleBooleanProperty();
        private final StringProperty value;
        private final ReadOnlyObjectWrapper<Badge> badge = new ReadOnlyObjectWrapper<>(Badge.NONE);

        Toggle(String recommended) {
            value = new SimpleStringProperty(recommended);
        }

        public BooleanProperty enabledProperty() {
            return enabled;
        }

        public StringProperty valueProperty() {
            return value;
        }

        public ReadOnlyObjectProperty<Badge> badgeProperty() {
            return badge.getReadOnlyProperty();
        }
    }

    private final ConfigDocument document;
    private final Map<String, Toggle> toggles = new LinkedHashMap<>();
    private final StringProperty custom = new SimpleStringProperty("");
    private NcclReport report;
    private boolean backendLoaded;
    private boolean updating;

    public NcclViewModel(ConfigDocument document) {
        this.document = document;
        for (NcclConfig.Toggle t : NcclConfig.KNOWN) {
            Toggle toggle = new Toggle(t.recommended());
            toggle.enabled.addListener((o, a, b) -> write());
            toggle.value.addListener((o, a, b) -> {
                if (toggle.enabled.get()) {
                    write();
                }
            });
            toggles.put(t.name(), toggle);
        }
        custom.addListener((o, a, b) -> write());
        document.textProperty().addListener((o, a, b) -> {
            if (!updating) {
                follow();
            }
        });
        follow();
    }

    public Toggle toggle(String name) {
        return toggles.get(name);
    }

    /** Custom variables, one NAME=value per line. */
    public StringProperty customProperty() {
        return custom;
    }

    /** Turns on the toggles the guides recommend inside containers, with their recommended values, and only those. */
    public void applyContainerPreset() {
        updating = true;
        try {
            for (NcclConfig.Toggle t : NcclConfig.KNOWN) {
                boolean on = CONTAINER_SAFE.contains(t.name());
                toggles.get(t.name()).enabled.set(on);
                if (on) {
                    toggles.get(t.name()).value.set(t.recommended());
                }
            }
        } finally {
            updating = false;
        }
        write();
    }

    /** What the engine did with the toggles at the last Start. */
    public void setReport(NcclReport report, boolean backendLoaded) {
        this.report = report;
        this.backendLoaded = backendLoaded;
        updateBadges();
    }

    private void write() {
        if (updating) {
            return;
        }
        updating = true;
        try {
            DocumentEdits.edit(document, tree -> {
                ObjectNode nccl = JsonNodeFactory.instance.objectNode();
                toggles.forEach((name, t) -> {
                    if (t.enabled.get()) {
                        nccl.set(
                                name,
                                JsonNodeFactory.instance.textNode(
                                        t.value.get() == null
                                                ? ""
                                                : t.value.get().strip()));
                    }
                });
                ObjectNode extra = JsonNodeFactory.instance.objectNode();
                for (String line : custom.get().split("\\R")) {
                    int eq = line.indexOf('=');
                    if (eq > 0) {
                        extra.put(
                                line.substring(0, eq).strip(),
                                line.substring(eq + 1).strip());
                    }
                }
                if (!extra.isEmpty()) {
                    nccl.set("custom", extra);
                }
                if (nccl.isEmpty()) {
                    tree.remove("nccl");
                } else {
                    tree.set("nccl", nccl);
                }
            });
        } finally {
            updating = false;
        }
        updateBadges();
    }

    private void follow() {
        ObjectNode tree = JsonTree.parse(document.text());
        if (tree == null) {
            return;
        }
        JsonNode nccl = tree.get("nccl");
        updating = true;
        try {
            toggles.forEach((name, t) -> {
                JsonNode v = nccl == null ? null : nccl.get(name);
                t.enabled.set(v != null);
                if (v != null) {
                    t.value.set(v.asText());
                }
            });
            JsonNode c = nccl == null ? null : nccl.get("custom");
            StringBuilder b = new StringBuilder();
            if (c != null) {
                c.fields()
                        .forEachRemaining(e -> b.append(e.getKey())
                                .append('=')
                                .append(e.getValue().asText())
                                .append('\n'));
            }
            if (!b.toString().strip().equals(custom.get().strip())) {
                custom.set(b.toString().strip());
            }
        } finally {
            updating = false;
        }
        updateBadges();
    }

    private void updateBadges() {
        toggles.forEach((name, t) -> t.badge.set(badge(name, t)));
    }

    private Badge badge(String name, Toggle t) {
        if (!t.enabled.get()) {
            return Badge.NONE;
        }
        NcclReport.Entry e = report == null ? null : report.get(name);
        String value = t.value.get() == null ? "" : t.value.get().strip();
        if (e != null && e.value().equals(value)) {
            return switch (e.status()) {
                case APPLIED -> new Badge("applied", "badge-ok", e.detail());
                case MAPPED -> new Badge("mapped", "badge-mapped", e.detail());
                case NEEDS_RESTART -> new Badge("needs restart", "badge-restart", e.detail());
                case FAILED -> new Badge("failed", "badge-failed", e.detail());
            };
        }
        if (backendLoaded) {
            return new Badge(
                    "needs restart",
                    "badge-restart",
                    "ND4J is already loaded in this process: native libraries read the "
                            + "environment when they load, so this takes full effect after restarting TrainDeck");
        }
        boolean mapped = name.equals("NCCL_TIMEOUT") || (name.equals("NCCL_P2P_DISABLE") && value.equals("1"));
        return mapped
                ? new Badge(
                        "mapped at Start",
                        "badge-mapped",
                        name.equals("NCCL_TIMEOUT")
                                ? "becomes TrainDeck's step watchdog"
                                : "turns off DL4J's cross-device access")
                : new Badge("applied at Start", "badge-ok", "set in the environment before ND4J loads");
    }
}
