package org.traindeck.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import javafx.scene.Node;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Control;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.TextField;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.Region;
import org.traindeck.engine.api.Configs;
import org.traindeck.engine.config.ConfigProblem;

/**
 * The config form's rows: each a control bound to a JSON path, with its label before it and the reason for its error
 * beside it. A user's edit of a control is handed to the form ({@code onEdit}), which writes it into the document.
 */
final class BoundFields {

    /** A control bound to a JSON path (which may depend on the selected stage), with the schema's word on it. */
    record Binding(
            Supplier<String> path,
            Control control,
            Function<JsonNode, Object> toControl,
            Supplier<JsonNode> fromControl,
            Consumer<Object> setter,
            Tooltip hint) {}

    static final String NOT_SET = "not set (the engine's default)";

    private final List<Binding> bindings = new ArrayList<>();
    /** Each field's reason, beside it: a red border alone, with the reason in a tooltip, was easy to miss. */
    private final Map<Control, Label> reasons = new HashMap<>();

    private final Map<Control, Label> rowLabels = new HashMap<>();
    private final Consumer<Binding> onEdit;

    BoundFields(Consumer<Binding> onEdit) {
        this.onEdit = onEdit;
    }

    static String id(String label) {
        return "field-" + label.toLowerCase().replaceAll("[^a-z0-9]+", "-").replaceAll("(^-|-$)", "");
    }

    static Tooltip tooltip(String hint) {
        if (hint == null) {
            return null;
        }
        Tooltip t = new Tooltip(hint);
        t.setWrapText(true);
        t.setMaxWidth(420);
        return t;
    }

    private static Tooltip hint(Supplier<String> path) {
        return tooltip(Configs.fieldHint(path.get()));
    }

    /** How many rows are bound so far: the start of a group of rows {@link #since} returns. */
    int count() {
        return bindings.size();
    }

    List<Binding> since(int first) {
        return bindings.subList(first, bindings.size());
    }

    void text(GridPane grid, int row, String label, Supplier<String> path, boolean list) {
        text(grid, row, label, id(label), path, list, Configs.defaultText(path.get()), hint(path));
    }

    /** Also the model type's fields, whose default and hint come from its own variant of the schema. */
    Control text(
            GridPane grid,
            int row,
            String label,
            String id,
            Supplier<String> path,
            boolean list,
            String fallback,
            Tooltip hint) {
        TextField field = new TextField();
        field.setId(id);
        field.setPrefColumnCount(18);
        // a field left empty takes the schema's default, shown greyed
        field.setPromptText(fallback);
        Binding b = new Binding(
                path,
                field,
                v -> JsonTree.toText(v),
                () -> list ? JsonTree.listFromText(field.getText()) : JsonTree.fromText(field.getText()),
                v -> field.setText((String) v),
                hint);
        field.textProperty().addListener((o, a, v) -> onEdit.accept(b));
        add(grid, row, label, field, b);
        return field;
    }

    void choice(GridPane grid, int row, String label, Supplier<String> path) {
        choice(
                grid,
                row,
                label,
                id(label),
                path,
                Configs.choices(path.get()),
                Configs.defaultText(path.get()),
                hint(path));
    }

    Control choice(
            GridPane grid,
            int row,
            String label,
            String id,
            Supplier<String> path,
            List<String> choices,
            String fallback,
            Tooltip hint) {
        ComboBox<String> box = new ComboBox<>();
        box.getItems().addAll(choices);
        box.setId(id);
        // left out, with no default in the schema (a model's "kernel"): the box says so rather than showing nothing
        // (the skin writes the prompt text over the cell's own when the value is not among the choices)
        box.setPromptText(NOT_SET);
        box.setButtonCell(new ListCell<>() {
            @Override
            protected void updateItem(String item, boolean empty) {
                super.updateItem(item, empty);
                setText(empty || item == null ? NOT_SET : item);
            }
        });
        Binding b = new Binding(
                path,
                box,
                v -> v == null ? fallback : v.asText(),
                () -> box.getValue() == null ? null : JsonNodeFactory.instance.textNode(box.getValue()),
                v -> box.setValue((String) v),
                hint);
        box.valueProperty().addListener((o, a, v) -> onEdit.accept(b));
        add(grid, row, label, box, b);
        return box;
    }

    /** A model type's switch: the value is written as the box shows it, its default when the file leaves it out. */
    Control flag(
            GridPane grid, int row, String label, String id, Supplier<String> path, boolean fallback, Tooltip hint) {
        CheckBox box = new CheckBox();
        box.setId(id);
        Binding b = new Binding(
                path,
                box,
                v -> v == null ? fallback : v.asBoolean(),
                () -> JsonNodeFactory.instance.booleanNode(box.isSelected()),
                v -> box.setSelected((Boolean) v),
                hint);
        box.selectedProperty().addListener((o, a, v) -> onEdit.accept(b));
        add(grid, row, label, box, b);
        return box;
    }

    /** A value the form does not edit (a graph's layers), summarised; the JSON tab edits it. */
    Control summary(
            GridPane grid, int row, String label, String id, Supplier<String> path, Function<JsonNode, String> text) {
        Label shown = new Label();
        shown.setId(id);
        shown.setWrapText(true);
        Binding b = new Binding(path, shown, text::apply, () -> null, v -> shown.setText((String) v), null);
        add(grid, row, label, shown, b);
        return shown;
    }

    /** A switch that is written only while on: off leaves the key out. */
    void check(GridPane grid, int row, String label, Supplier<String> path) {
        CheckBox box = new CheckBox();
        box.setId(id(label));
        Binding b = new Binding(
                path,
                box,
                v -> v != null && v.asBoolean(),
                () -> box.isSelected() ? JsonNodeFactory.instance.booleanNode(true) : null,
                v -> box.setSelected((Boolean) v),
                hint(path));
        box.selectedProperty().addListener((o, a, v) -> onEdit.accept(b));
        add(grid, row, label, box, b);
    }

    private void add(GridPane grid, int row, String label, Control control, Binding b) {
        control.setTooltip(b.hint());
        // a label is read whole; the field gives up width first (it scrolls its text)
        Label name = new Label(label);
        name.setMinWidth(Region.USE_PREF_SIZE);
        control.setMinWidth(60);
        grid.add(name, 0, row);
        grid.add(control, 1, row);
        Label reason = new Label();
        reason.setId(control.getId() == null ? null : control.getId() + "-reason");
        reason.getStyleClass().add("field-reason");
        reason.setWrapText(true);
        reason.setMaxWidth(280);
        reason.setMinHeight(Region.USE_PREF_SIZE);
        reason.setVisible(false);
        reason.setManaged(false);
        grid.add(reason, 2, row);
        reasons.put(control, reason);
        rowLabels.put(control, name);
        bindings.add(b);
    }

    /** Drops the given controls' bindings (the previous model type's fields). */
    void unbind(List<Control> controls) {
        bindings.removeIf(b -> controls.contains(b.control()));
        controls.forEach(reasons::remove);
        controls.forEach(rowLabels::remove);
    }

    /** Shows each bound value of {@code tree} in its control. */
    void fill(ObjectNode tree) {
        for (Binding b : bindings) {
            b.setter().accept(b.toControl().apply(JsonTree.get(tree, b.path().get())));
        }
    }

    void setDisable(boolean disabled) {
        for (Binding b : bindings) {
            b.control().setDisable(disabled);
        }
    }

    void clearProblems() {
        for (Binding b : bindings) {
            b.control().getStyleClass().remove("field-error");
            b.control().setTooltip(b.hint());
            showReason(b.control(), null);
        }
    }

    /** Marks the fields at or above the error's path: a red border, the reason in a tooltip and beside the field. */
    void mark(ConfigProblem p) {
        for (Binding b : bindings) {
            String path = b.path().get();
            if (p.isError()
                    && (path.equals(p.path())
                            || p.path().startsWith(path + ".")
                            || p.path().startsWith(path + "["))) {
                if (!b.control().getStyleClass().contains("field-error")) {
                    b.control().getStyleClass().add("field-error");
                }
                b.control().setTooltip(new Tooltip(p.toString()));
                showReason(b.control(), p);
            }
        }
    }

    /** The field's first error beside it ("must be ≥ 1"), or nothing. */
    private void showReason(Control control, ConfigProblem p) {
        Label reason = reasons.get(control);
        if (reason == null || (p != null && reason.isVisible())) {
            return;
        }
        reason.setText(p == null ? "" : "✖ " + p.message());
        reason.setVisible(p != null);
        reason.setManaged(p != null);
    }

    /** The JSON paths of the fields in view now, in the form's order. */
    List<String> shownPaths() {
        return bindings.stream()
                .filter(b -> b.control().isVisible())
                .map(b -> b.path().get())
                .toList();
    }

    void showRow(Control control, boolean shown) {
        for (Node n : new Node[] {control, rowLabels.get(control)}) {
            if (n != null) {
                n.setVisible(shown);
                n.setManaged(shown);
            }
        }
    }
}
