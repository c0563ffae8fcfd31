package org.traindeck.app;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javafx.geometry.BoundingBox;
import javafx.geometry.Bounds;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.control.ComboBoxBase;
import javafx.scene.control.Control;
import javafx.scene.control.Labeled;
import javafx.scene.control.ListView;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.TableView;
import javafx.scene.control.TextInputControl;
import javafx.scene.control.TreeTableView;
import javafx.scene.control.TreeView;
import org.jfree.chart.fx.ChartViewer;

/**
 * Finds what is cut off: every visible control whose bounds leave its parent's or the window's. Content that scrolls
 * (scroll panes, lists, tables, text areas) is the one place where overflowing is meant, so the walk stops at those.
 * The headless tests run it at the usual laptop sizes, and {@code --layout-audit} runs it in the real window.
 */
public final class LayoutAudit {

    /** Sub-pixel rounding of snapped layouts. */
    private static final double SLACK = 1.5;

    private LayoutAudit() {}

    /**
     * Each control cut off in the scene of {@code root}, as one line naming it (class, id, text), its bounds and
     * the bounds it leaves, prefixed with {@code where}. Call it on the FX thread, after a layout.
     */
    public static List<String> clippedControls(Parent root, String where) {
        List<String> out = new ArrayList<>();
        Bounds windowBounds = new BoundingBox(
                0, 0, root.getScene().getWidth(), root.getScene().getHeight());
        walk(root, windowBounds, where, out);
        return out;
    }

    private static void walk(Parent parent, Bounds windowBounds, String where, List<String> out) {
        Bounds parentBounds = parent.localToScene(parent.getLayoutBounds());
        for (Node child : parent.getChildrenUnmodifiable()) {
            if (!child.isVisible() || child.getOpacity() == 0) {
                continue;
            }
            Bounds b = child.localToScene(child.getLayoutBounds());
            if (child instanceof Control && b.getWidth() > 0 && b.getHeight() > 0) {
                if (!inside(b, parentBounds)) {
                    out.add(describe(child, where) + " leaves its parent " + describe(parent, where) + ": " + box(b)
                            + " outside " + box(parentBounds));
                } else if (!inside(b, windowBounds)) {
                    out.add(describe(child, where) + " leaves the window: " + box(b));
                }
            }
            if (child instanceof Parent p && !scrolls(child)) {
                walk(p, windowBounds, where, out);
            }
        }
    }

    /** Containers whose content is meant to be larger than they are (or drawn by their own code). */
    private static boolean scrolls(Node n) {
        return n instanceof ScrollPane
                || n instanceof ListView
                || n instanceof TableView
                || n instanceof TreeView
                || n instanceof TreeTableView
                || n instanceof TextInputControl
                || n instanceof ChartViewer
                || n instanceof ComboBoxBase;
    }

    private static boolean inside(Bounds b, Bounds outer) {
        return b.getMinX() >= outer.getMinX() - SLACK
                && b.getMinY() >= outer.getMinY() - SLACK
                && b.getMaxX() <= outer.getMaxX() + SLACK
                && b.getMaxY() <= outer.getMaxY() + SLACK;
    }

    private static String describe(Node n, String where) {
        String id = n.getId() != null ? "#" + n.getId() : "";
        String text = n instanceof Labeled l && l.getText() != null ? " '" + l.getText() + "'" : "";
        return "[" + where + "] " + n.getClass().getSimpleName() + id + text;
    }

    private static String box(Bounds b) {
        return String.format(
                Locale.ROOT, "(%.0f,%.0f)-(%.0f,%.0f)", b.getMinX(), b.getMinY(), b.getMaxX(), b.getMaxY());
    }
}
