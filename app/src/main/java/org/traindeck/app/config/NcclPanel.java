package org.traindeck.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import javafx.geometry.Insets;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.Label;
import javafx.scene.control.TextArea;
import javafx.scene.control.TextField;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.ColumnConstraints;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import org.traindeck.engine.config.NcclConfig;
import org.traindeck.engine.parallel.NcclReport;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The NCCL workaround toggles: one per variable with its value, what it does, and a badge saying what became of it
 * (will be applied at the next Start, mapped to a DL4J equivalent, needs a restart, or failed). A container-safe
 * preset, and custom variables. Everything is written to the config's "nccl" section.
 */
public final class NcclPanel extends VBox {

    /** The toggles that help in containers (no InfiniBand, no peer-to-peer, sockets on eth0/lo, a timeout). */
    public static final Set<String> CONTAINER_SAFE = Set.of("NCCL_TIMEOUT", "NCCL_BLOCKING_WAIT", "NCCL_IB_DISABLE",
            "NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE", "NCCL_SOCKET_IFNAME", "NCCL_DEBUG");

    private final ConfigDocument document;
    private final Map<String, CheckBox> enabled = new LinkedHashMap<>();
    private final Map<String, TextField> values = new LinkedHashMap<>();
    private final Map<String, Label> badges = new LinkedHashMap<>();
    private final TextArea custom = new TextArea();
    private NcclReport report;
    private boolean backendLoaded;
    private boolean updating;

    public NcclPanel(ConfigDocument document) {
        super(8);
        this.document = document;
        setId("nccl-panel");
        setPadding(new Insets(8));
        Label intro = new Label("TrainDeck's all-reduce and DL4J's ParallelWrapper do not use NCCL: these are set in the process environment before "
                + "ND4J loads (for native libraries that read them), and mapped to DL4J where an equivalent exists: "
                + "P2P off turns off cross-device access, and the timeout becomes the step watchdog.");
        intro.setWrapText(true);
        GridPane grid = new GridPane();
        grid.setHgap(8);
        grid.setVgap(4);
        // each toggle's name and value on one line, its explanation under them, wrapping to the pane's width
        ColumnConstraints names = unshrinking();
        ColumnConstraints rest = new ColumnConstraints();
        rest.setHgrow(Priority.ALWAYS);
        grid.getColumnConstraints().setAll(names, unshrinking(), rest);
        int r = 0;
        for (NcclConfig.Toggle t : NcclConfig.KNOWN) {
            CheckBox box = new CheckBox(t.name());
            // NCCL_TIMEOUT, not "NCCLTIMEOUT": the first underscore would otherwise mark a keyboard mnemonic
            box.setMnemonicParsing(false);
            box.setId("nccl-" + t.name());
            TextField value = new TextField(t.recommended());
            value.setId("nccl-value-" + t.name());
            value.setPrefColumnCount(6);
            Label explanation = new Label(t.explanation());
            explanation.getStyleClass().add("nccl-explanation");
            explanation.setWrapText(true);
            Label badge = new Label();
            badge.setId("nccl-badge-" + t.name());
            badge.getStyleClass().add("badge");
            box.selectedProperty().addListener((o, a, b) -> write());
            value.textProperty().addListener((o, a, b) -> {
                if (box.isSelected()) {
                    write();
                }
            });
            enabled.put(t.name(), box);
            values.put(t.name(), value);
            badges.put(t.name(), badge);
            grid.add(box, 0, r);
            grid.add(value, 1, r);
            grid.add(badge, 2, r++);
            grid.add(explanation, 0, r++, 3, 1);
        }
        Button preset = new Button("Container-safe preset");
        preset.setId("nccl-container-preset");
        preset.setTooltip(new Tooltip("turn on the toggles the guides recommend inside containers, with their recommended values"));
        preset.setOnAction(e -> {
            updating = true;
            try {
                for (NcclConfig.Toggle t : NcclConfig.KNOWN) {
                    boolean on = CONTAINER_SAFE.contains(t.name());
                    enabled.get(t.name()).setSelected(on);
                    if (on) {
                        values.get(t.name()).setText(t.recommended());
                    }
                }
            } finally {
                updating = false;
            }
            write();
        });
        custom.setId("nccl-custom");
        custom.setPromptText("custom variables, one NAME=value per line");
        custom.setPrefRowCount(3);
        custom.textProperty().addListener((o, a, b) -> write());
        getChildren().addAll(intro, preset, grid, new Label("Custom environment variables"), custom);
        document.textProperty().addListener((o, a, b) -> {
            if (!updating) {
                follow();
            }
        });
        follow();
    }

    /** What the engine did with the toggles at the last Start; null before any. */
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
                enabled.forEach((name, box) -> {
                    if (box.isSelected()) {
                        nccl.set(name, JsonTree.fromText(values.get(name).getText()) == null
                                ? JsonNodeFactory.instance.textNode("") : JsonNodeFactory.instance.textNode(values.get(name).getText().strip()));
                    }
                });
                ObjectNode extra = JsonNodeFactory.instance.objectNode();
                for (String line : custom.getText().split("\\R")) {
                    int eq = line.indexOf('=');
                    if (eq > 0) {
                        extra.put(line.substring(0, eq).strip(), line.substring(eq + 1).strip());
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
            for (NcclConfig.Toggle t : NcclConfig.KNOWN) {
                JsonNode v = nccl == null ? null : nccl.get(t.name());
                enabled.get(t.name()).setSelected(v != null);
                if (v != null) {
                    values.get(t.name()).setText(v.asText());
                }
            }
            JsonNode c = nccl == null ? null : nccl.get("custom");
            StringBuilder b = new StringBuilder();
            if (c != null) {
                c.fields().forEachRemaining(e -> b.append(e.getKey()).append('=').append(e.getValue().asText()).append('\n'));
            }
            if (!b.toString().strip().equals(custom.getText().strip())) {
                custom.setText(b.toString().strip());
            }
        } finally {
            updating = false;
        }
        updateBadges();
    }

    private void updateBadges() {
        enabled.forEach((name, box) -> {
            Label badge = badges.get(name);
            badge.getStyleClass().removeAll("badge-ok", "badge-mapped", "badge-restart", "badge-failed");
            if (!box.isSelected()) {
                badge.setText("");
                badge.setTooltip(null);
                return;
            }
            NcclReport.Entry e = report == null ? null : report.get(name);
            String value = values.get(name).getText().strip();
            if (e != null && e.value().equals(value)) {
                badge.setText(switch (e.status()) {
                    case APPLIED -> "applied";
                    case MAPPED -> "mapped";
                    case NEEDS_RESTART -> "needs restart";
                    case FAILED -> "failed";
                });
                badge.getStyleClass().add(switch (e.status()) {
                    case APPLIED -> "badge-ok";
                    case MAPPED -> "badge-mapped";
                    case NEEDS_RESTART -> "badge-restart";
                    case FAILED -> "badge-failed";
                });
                badge.setTooltip(new Tooltip(e.detail()));
            } else if (backendLoaded) {
                badge.setText("needs restart");
                badge.getStyleClass().add("badge-restart");
                badge.setTooltip(new Tooltip("ND4J is already loaded in this process: native libraries read the environment when "
                        + "they load, so this takes full effect after restarting TrainDeck"));
            } else {
                boolean mapped = name.equals("NCCL_TIMEOUT") || (name.equals("NCCL_P2P_DISABLE") && value.equals("1"));
                badge.setText(mapped ? "mapped at Start" : "applied at Start");
                badge.getStyleClass().add(mapped ? "badge-mapped" : "badge-ok");
                badge.setTooltip(new Tooltip(mapped
                        ? (name.equals("NCCL_TIMEOUT") ? "becomes TrainDeck's step watchdog" : "turns off DL4J's cross-device access")
                        : "set in the environment before ND4J loads"));
            }
        });
    }

    private static ColumnConstraints unshrinking() {
        ColumnConstraints c = new ColumnConstraints();
        c.setMinWidth(Region.USE_PREF_SIZE);
        return c;
    }
}
