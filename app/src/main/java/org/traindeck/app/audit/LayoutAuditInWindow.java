package org.traindeck.app.audit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javafx.animation.PauseTransition;
import javafx.scene.Parent;
import javafx.scene.Scene;
import javafx.scene.control.Alert;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.util.Duration;

/**
 * {@code --layout-audit=WIDTHxHEIGHT}: the layout audit in the real window, where the window manager, the real
 * fonts and GTK decide the sizes. It waits until the window's content area is that size (the window manager or
 * {@code xdotool windowsize} puts it there) and the config has loaded, then shows every tab of the config side with
 * every tab of the run side, runs {@link LayoutAudit} on each, selects the tabs that were selected before, shows and
 * audits each dialog it was given (Help's), and reports one line per defect ({@code clipped: ...},
 * {@code ellipsized: ...}, {@code overlapping: ...}, {@code contrast: ...}) and then its verdict, a line starting with
 * {@code layout-audit WIDTHxHEIGHT: ok} or {@code ... FAILED} that counts what was checked of each kind. The window
 * stays open.
 */
public final class LayoutAuditInWindow {

    /** The size to audit at, from the option's value ({@code 1360x860}). */
    public record Size(double width, double height) {
        public static Size parse(String text) {
            String[] parts = text.toLowerCase(Locale.ROOT).split("x");
            if (parts.length != 2) {
                throw new IllegalArgumentException("--layout-audit takes WIDTHxHEIGHT, such as 1360x860: " + text);
            }
            return new Size(Double.parseDouble(parts[0]), Double.parseDouble(parts[1]));
        }

        public boolean matches(Scene scene) {
            return Math.abs(scene.getWidth() - width) < 0.5 && Math.abs(scene.getHeight() - height) < 0.5;
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%.0fx%.0f", width, height);
        }
    }

    private static final Duration POLL = Duration.millis(200);
    /** A tab built on first show, and content that arrives a moment later (devices, the runs list), get this long. */
    private static final Duration SETTLE = Duration.millis(400);
    /** How long the window may take to reach the size and load its config: first launches on busy machines are slow. */
    private static final int MAX_POLLS = 5 * 300;

    private final Scene scene;
    private final Size size;
    private final BooleanSupplier contentLoaded;
    private final Consumer<String> report;
    private final Map<String, Supplier<Alert>> dialogs;
    private int polls;
    private int steadyPolls;

    /**
     * @param contentLoaded whether the window shows its config (the audit waits for it)
     * @param report where each line of the report goes
     */
    public LayoutAuditInWindow(Scene scene, Size size, BooleanSupplier contentLoaded, Consumer<String> report) {
        this(scene, size, contentLoaded, report, Map.of());
    }

    /** @param dialogs the dialogs to show and audit after the tabs, by name */
    public LayoutAuditInWindow(
            Scene scene,
            Size size,
            BooleanSupplier contentLoaded,
            Consumer<String> report,
            Map<String, Supplier<Alert>> dialogs) {
        this.dialogs = new LinkedHashMap<>(dialogs);
        this.scene = scene;
        this.size = size;
        this.contentLoaded = contentLoaded;
        this.report = report;
    }

    /** Starts waiting; call it on the FX thread once the window is shown. */
    public void start() {
        after(POLL, this::poll);
    }

    private void poll() {
        polls++;
        // the window manager may resize the window more than once while it places it: the same size three polls in
        // a row
        steadyPolls = size.matches(scene) ? steadyPolls + 1 : 0;
        if (steadyPolls >= 3 && contentLoaded.getAsBoolean()) {
            audit();
        } else if (polls >= MAX_POLLS) {
            report.accept(String.format(
                    Locale.ROOT,
                    "layout-audit %s: FAILED, the window did not reach %s with its config loaded within %.0f s (it is"
                            + " %.0fx%.0f, config loaded: %s)",
                    size,
                    size,
                    MAX_POLLS * POLL.toSeconds(),
                    scene.getWidth(),
                    scene.getHeight(),
                    contentLoaded.getAsBoolean()));
        } else {
            after(POLL, this::poll);
        }
    }

    private void audit() {
        TabPane config = (TabPane) scene.lookup("#config-tabs");
        TabPane side = (TabPane) scene.lookup("#charts-or-layers");
        Tab configBefore = config.getSelectionModel().getSelectedItem();
        Tab sideBefore = side.getSelectionModel().getSelectedItem();
        List<Tab[]> pairs = new ArrayList<>();
        for (Tab s : side.getTabs()) {
            for (Tab c : config.getTabs()) {
                pairs.add(new Tab[] {c, s});
            }
        }
        AuditReport found = new AuditReport();
        visit(pairs, 0, found, () -> {
            config.getSelectionModel().select(configBefore);
            side.getSelectionModel().select(sideBefore);
            visitDialogs(new ArrayList<>(dialogs.keySet()), 0, found, () -> verdict(found, pairs.size()));
        });
    }

    private void verdict(AuditReport found, int pairs) {
        found.lines().forEach(report);
        String what = String.format(Locale.ROOT, "%d tab pairs and %d dialogs", pairs, dialogs.size());
        report.accept(
                found.isClean()
                        ? String.format(
                                Locale.ROOT,
                                "layout-audit %s: ok, nothing wrong on %s (window %.0fx%.0f): %s",
                                size,
                                what,
                                scene.getWidth(),
                                scene.getHeight(),
                                found.summary())
                        : String.format(
                                Locale.ROOT,
                                "layout-audit %s: FAILED, %d defects on %s: %s",
                                size,
                                found.lines().size(),
                                what,
                                found.summary()));
    }

    private void visit(List<Tab[]> pairs, int i, AuditReport found, Runnable done) {
        if (i == pairs.size()) {
            done.run();
            return;
        }
        Tab configTab = pairs.get(i)[0];
        Tab sideTab = pairs.get(i)[1];
        configTab.getTabPane().getSelectionModel().select(configTab);
        sideTab.getTabPane().getSelectionModel().select(sideTab);
        after(SETTLE, () -> {
            scene.getRoot().applyCss();
            scene.getRoot().layout();
            found.add(LayoutAudit.audit(scene.getRoot(), configTab.getText() + " + " + sideTab.getText()));
            visit(pairs, i + 1, found, done);
        });
    }

    /** Each dialog shown over the window as the window manager places it, audited, and closed again. */
    private void visitDialogs(List<String> names, int i, AuditReport found, Runnable done) {
        if (i == names.size()) {
            done.run();
            return;
        }
        Alert dialog = dialogs.get(names.get(i)).get();
        dialog.show();
        after(SETTLE, () -> {
            Parent root = dialog.getDialogPane().getScene().getRoot();
            root.applyCss();
            root.layout();
            found.add(LayoutAudit.audit(root, "dialog " + names.get(i)));
            dialog.close();
            visitDialogs(names, i + 1, found, done);
        });
    }

    private static void after(Duration delay, Runnable then) {
        PauseTransition wait = new PauseTransition(delay);
        wait.setOnFinished(e -> then.run());
        wait.play();
    }
}
