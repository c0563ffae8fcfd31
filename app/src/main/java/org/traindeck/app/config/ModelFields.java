package org.traindeck.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.control.Control;
import javafx.scene.layout.GridPane;

/**
 * The Model section's rows below the type: the chosen type's properties as the schema lists them, each edited by the
 * control its kind takes (a choice, a number, a switch, a list of whole numbers), so a new model type needs no form
 * code. What a field cannot edit (a graph's layers) is summarised, with a button to the JSON tab.
 */
final class ModelFields {

    /** Labels that read better than the key spelled out; keyed "type.key" or "key". */
    private static final Map<String, String> LABELS = Map.of(
            "mlp.hidden",
            "Hidden layers",
            "lenet.channels",
            "Conv channels",
            "mlpRatio",
            "MLP ratio",
            "dense",
            "Dense units",
            "blocks",
            "Residual blocks",
            "batchNorm",
            "Batch normalization",
            "recompute",
            "Recompute activations",
            "init",
            "Starting weights");
    /** Ids kept from the form's first, fixed rows, which tests and users' scripts look up. */
    private static final Map<String, String> IDS =
            Map.of("mlp.hidden", "field-hidden-layers-mlp", "lenet.channels", "field-conv-channels-lenet");

    private static final int SHOWN_ENTRIES = 5;

    private final BoundFields fields;
    private final GridPane grid;
    private final Runnable editInJson;
    private final List<Control> controls = new ArrayList<>();
    private String shown;

    ModelFields(BoundFields fields, GridPane grid, Runnable editInJson) {
        this.fields = fields;
        this.grid = grid;
        this.editInJson = editInJson;
    }

    /** Shows model type {@code type}'s fields unless they are shown already; true when the rows were rebuilt. */
    boolean show(String type) {
        if (Objects.equals(type, shown)) {
            return false;
        }
        shown = type;
        fields.unbind(controls);
        controls.clear();
        grid.getChildren().removeIf(n -> row(n) > 0);
        int row = 1;
        boolean summarised = false;
        for (ModelSchema.Property p : ModelSchema.properties(type)) {
            String label = label(type, p.key());
            String id = IDS.getOrDefault(type + "." + p.key(), BoundFields.id(label));
            Supplier<String> path = () -> "model." + p.key();
            var hint = BoundFields.tooltip(p.hint());
            controls.add(
                    switch (p.kind()) {
                        case CHOICE -> fields.choice(grid, row, label, id, path, p.choices(), p.defaultText(), hint);
                        case BOOLEAN ->
                            fields.flag(grid, row, label, id, path, Boolean.parseBoolean(p.defaultText()), hint);
                        case INT_LIST -> fields.text(grid, row, label, id, path, true, p.defaultText(), hint);
                        case INTEGER, NUMBER, STRING ->
                            fields.text(grid, row, label, id, path, false, p.defaultText(), hint);
                        case OTHER -> fields.summary(grid, row, label, id, path, ModelFields::summarise);
                    });
            summarised |= p.kind() == ModelSchema.Kind.OTHER;
            row++;
        }
        if (summarised) {
            Button json = new Button("Edit in JSON");
            json.setId("edit-in-json");
            json.setOnAction(e -> editInJson.run());
            grid.add(json, 1, row);
        }
        return true;
    }

    private static int row(Node n) {
        Integer r = GridPane.getRowIndex(n);
        return r == null ? 0 : r;
    }

    static String label(String type, String key) {
        String label = LABELS.getOrDefault(type + "." + key, LABELS.get(key));
        if (label != null) {
            return label;
        }
        String words = key.replaceAll("([a-z0-9])([A-Z])", "$1 $2").toLowerCase();
        return Character.toUpperCase(words.charAt(0)) + words.substring(1);
    }

    /** "9 entries: conv1 (conv2d), conv2 (conv2d), …" for a list of nodes; the value on one line otherwise. */
    static String summarise(JsonNode value) {
        if (value == null) {
            return "not set";
        }
        if (!value.isArray()) {
            String text = JsonSplice.compact(value);
            return text.length() > 80 ? text.substring(0, 79) + "…" : text;
        }
        List<String> first = new ArrayList<>();
        for (int i = 0; i < Math.min(SHOWN_ENTRIES, value.size()); i++) {
            JsonNode e = value.get(i);
            String name = e.path("name").asText("");
            String type = e.path("type").asText("");
            first.add(name.isEmpty() ? type : type.isEmpty() ? name : name + " (" + type + ")");
        }
        return value.size()
                + (value.size() == 1 ? " entry: " : " entries: ")
                + String.join(", ", first)
                + (value.size() > SHOWN_ENTRIES ? ", …" : "");
    }
}
