package org.traindeck.app.audit;

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
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.TilePane;
import javafx.scene.layout.VBox;
import org.jfree.chart.fx.ChartViewer;
import org.traindeck.app.charts.LiveChart;

/**
 * Looks at a scene as a user sees it and reports what a user would stumble over: a control cut off by its parent or
 * the window, or out of view with no scroll bar that reaches it (or in a pane marked {@link #mustFit} that scrolls); a
 * text cut to "…" ({@link TextAudit}); a node drawn over a sibling in a layout pane; a text or a chart series with less
 * than 3:1 contrast. The headless tests run it at the usual laptop sizes, and {@code --layout-audit} in the real window.
 */
public final class LayoutAudit {

    /** Sub-pixel rounding of snapped layouts. */
    private static final double SLACK = 1.5;
    /** Siblings touching by less than this (a focus ring, a rounded border) do not overlap. */
    private static final double OVERLAP = 3;

    private static final String MUST_FIT = "traindeck.layout-audit.must-fit";

    private LayoutAudit() {}

    /**
     * Marks a scroll pane whose content must fit it at the sizes the audit checks: a chart half out of view is
     * unreadable even when a scroll bar reaches the rest.
     */
    public static void mustFit(ScrollPane pane) {
        pane.getProperties().put(MUST_FIT, Boolean.TRUE);
    }

    /** What the audit finds in the scene of {@code root}, each defect prefixed with {@code where}. FX thread. */
    public static AuditReport audit(Parent root, String where) {
        AuditReport report = new AuditReport();
        Bounds window = new BoundingBox(
                0, 0, root.getScene().getWidth(), root.getScene().getHeight());
        new LayoutAudit.Walk(where, report).visit(root, window, window, true);
        return report;
    }

    /** The controls cut off in the scene of {@code root}, one line each (the audit's clipped defects). */
    public static List<String> clippedControls(Parent root, String where) {
        return audit(root, where).defects(AuditReport.Kind.CLIPPED);
    }

    private record Walk(String where, AuditReport report) {

        /**
         * @param view what of the scene can be seen here: the window, or the viewport of the scroll pane around
         * @param reach how far scrolling reaches: the window, or the scroll pane's content where a scroll bar shows
         * @param checkBounds false inside lists, tables and text, whose content is meant to overflow
         */
        void visit(Parent parent, Bounds view, Bounds reach, boolean checkBounds) {
            Bounds parentBounds = parent.localToScene(parent.getLayoutBounds());
            for (Node child : parent.getChildrenUnmodifiable()) {
                if (!child.isVisible() || child.getOpacity() == 0) {
                    continue;
                }
                Bounds b = child.localToScene(child.getLayoutBounds());
                boolean seen = b.getWidth() > 0 && b.getHeight() > 0 && b.intersects(view);
                if (checkBounds && child instanceof Control && b.getWidth() > 0 && b.getHeight() > 0) {
                    clipping(child, parent, b, parentBounds, reach);
                }
                if (seen && child instanceof Labeled l) {
                    TextAudit.check(l, describe(l), report);
                }
                if (seen && child instanceof LiveChart chart) {
                    TextAudit.checkSeries(chart, describe(chart), report);
                }
                if (child instanceof Parent p) {
                    descend(p, view, reach, checkBounds && !scrolls(child));
                }
            }
            if (isLayoutPane(parent)) {
                overlaps(parent);
            }
        }

        private void descend(Parent p, Bounds view, Bounds reach, boolean checkBounds) {
            if (p instanceof ScrollPane sp && sp.getContent() != null) {
                Bounds viewport = sp.localToScene(sp.getViewportBounds());
                Bounds content = sp.getContent().localToScene(sp.getContent().getLayoutBounds());
                boolean beyondY = content.getHeight() > viewport.getHeight() + SLACK;
                boolean beyondX = content.getWidth() > viewport.getWidth() + SLACK;
                if (Boolean.TRUE.equals(sp.getProperties().get(MUST_FIT)) && (beyondX || beyondY)) {
                    report.defect(
                            AuditReport.Kind.CLIPPED,
                            describe(sp) + " scrolls: its content " + size(content) + " is larger than its view "
                                    + size(viewport));
                }
                boolean reachY = beyondY && sp.getVbarPolicy() != ScrollPane.ScrollBarPolicy.NEVER;
                boolean reachX = beyondX && sp.getHbarPolicy() != ScrollPane.ScrollBarPolicy.NEVER;
                Bounds scrollReach = new BoundingBox(
                        reachX ? content.getMinX() : viewport.getMinX(),
                        reachY ? content.getMinY() : viewport.getMinY(),
                        reachX ? content.getWidth() : viewport.getWidth(),
                        reachY ? content.getHeight() : viewport.getHeight());
                visit(p, intersection(view, viewport), scrollReach, checkBounds);
            } else {
                visit(p, view, reach, checkBounds);
            }
        }

        private void clipping(Node child, Parent parent, Bounds b, Bounds parentBounds, Bounds reach) {
            report.checked(AuditReport.Kind.CLIPPED);
            if (!inside(b, parentBounds)) {
                report.defect(
                        AuditReport.Kind.CLIPPED,
                        describe(child) + " leaves its parent " + describe(parent) + ": " + box(b) + " outside "
                                + box(parentBounds));
            } else if (!inside(b, reach)) {
                report.defect(
                        AuditReport.Kind.CLIPPED,
                        describe(child) + " is out of view with no scroll bar that reaches it: " + box(b) + " outside "
                                + box(reach));
            }
        }

        /** Each pair of laid-out siblings: one's drawing (its text may spill out of it) must not cover the other. */
        private void overlaps(Parent parent) {
            List<Node> kids = parent.getChildrenUnmodifiable().stream()
                    .filter(n -> n.isVisible() && n.isManaged() && n.getOpacity() > 0)
                    .filter(n -> n.getLayoutBounds().getWidth() > 0
                            && n.getLayoutBounds().getHeight() > 0)
                    .toList();
            for (int i = 0; i < kids.size(); i++) {
                for (int j = i + 1; j < kids.size(); j++) {
                    report.checked(AuditReport.Kind.OVERLAPPING);
                    Node a = kids.get(i);
                    Node c = kids.get(j);
                    if (overlap(a.getBoundsInParent(), c.getBoundsInParent())) {
                        report.defect(
                                AuditReport.Kind.OVERLAPPING,
                                describe(a) + " " + box(a.localToScene(a.getBoundsInLocal())) + " overlaps "
                                        + describe(c) + " " + box(c.localToScene(c.getBoundsInLocal()))
                                        + spill(a) + spill(c));
                    }
                }
            }
        }

        private String describe(Node n) {
            return LayoutAudit.describe(n, where);
        }
    }

    /** The first node inside {@code n} drawn beyond {@code n}'s own box, which is what covers the sibling. */
    private static String spill(Node n) {
        Bounds own = n.localToScene(n.getLayoutBounds());
        if (n instanceof Parent p) {
            for (Node child : p.getChildrenUnmodifiable()) {
                Bounds drawn = child.localToScene(child.getBoundsInLocal());
                if (child.isVisible() && !inside(drawn, own)) {
                    String deeper = spill(child);
                    return deeper.isEmpty()
                            ? " (" + child.getClass().getSimpleName() + idOf(child) + " drawn at " + box(drawn)
                                    + " beyond " + box(own) + ")"
                            : deeper;
                }
            }
        }
        return "";
    }

    private static String idOf(Node n) {
        return n.getId() == null ? "" : "#" + n.getId();
    }

    /** Panes that place their children side by side or one under another: none is meant to cover another. */
    private static boolean isLayoutPane(Parent p) {
        return p instanceof HBox
                || p instanceof VBox
                || p instanceof GridPane
                || p instanceof FlowPane
                || p instanceof TilePane
                || p instanceof BorderPane;
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

    private static boolean overlap(Bounds a, Bounds b) {
        double w = Math.min(a.getMaxX(), b.getMaxX()) - Math.max(a.getMinX(), b.getMinX());
        double h = Math.min(a.getMaxY(), b.getMaxY()) - Math.max(a.getMinY(), b.getMinY());
        return w > OVERLAP && h > OVERLAP;
    }

    private static Bounds intersection(Bounds a, Bounds b) {
        double minX = Math.max(a.getMinX(), b.getMinX());
        double minY = Math.max(a.getMinY(), b.getMinY());
        double maxX = Math.min(a.getMaxX(), b.getMaxX());
        double maxY = Math.min(a.getMaxY(), b.getMaxY());
        return new BoundingBox(minX, minY, Math.max(0, maxX - minX), Math.max(0, maxY - minY));
    }

    private static boolean inside(Bounds b, Bounds outer) {
        return b.getMinX() >= outer.getMinX() - SLACK
                && b.getMinY() >= outer.getMinY() - SLACK
                && b.getMaxX() <= outer.getMaxX() + SLACK
                && b.getMaxY() <= outer.getMaxY() + SLACK;
    }

    static String describe(Node n, String where) {
        String id = n.getId() != null ? "#" + n.getId() : "";
        String text = n instanceof Labeled l && l.getText() != null ? " '" + l.getText() + "'" : "";
        return "[" + where + "] " + n.getClass().getSimpleName() + id + text;
    }

    private static String box(Bounds b) {
        return String.format(
                Locale.ROOT, "(%.0f,%.0f)-(%.0f,%.0f)", b.getMinX(), b.getMinY(), b.getMaxX(), b.getMaxY());
    }

    private static String size(Bounds b) {
        return String.format(Locale.ROOT, "%.0fx%.0f", b.getWidth(), b.getHeight());
    }
}
