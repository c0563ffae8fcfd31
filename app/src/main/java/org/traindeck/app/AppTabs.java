package org.traindeck.app;

import java.util.ArrayList;
import java.util.List;
import javafx.scene.Node;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.Tab;
import org.traindeck.app.config.NcclPanel;
import org.traindeck.app.devices.DeviceSelector;
import org.traindeck.app.runs.QueueView;
import org.traindeck.app.runs.RunsView;
import org.traindeck.app.runs.SweepsView;

/** The config side's tabs, in the order the window shows them: a new tab is one {@link AppTab} and one line here. */
public final class AppTabs {

    /** The tab shown first, built with the window. */
    static final AppTab CONFIG = new AppTab() {
        @Override
        public String title() {
            return "Config";
        }

        @Override
        public boolean eager() {
            return true;
        }

        @Override
        public Node content(TabContext c) {
            return c.form();
        }
    };

    static final AppTab JSON = new AppTab() {
        @Override
        public String title() {
            return "JSON";
        }

        @Override
        public Node content(TabContext c) {
            return new JsonEditorPane(c.document(), c.modelSummary());
        }

        @Override
        public void attach(Tab tab, TabContext c) {
            // the model table is worked out only while it can be seen
            c.modelSummary().showingProperty().bind(tab.selectedProperty());
        }
    };

    private static final AppTabs STANDARD = new AppTabs(List.of(
            CONFIG,
            JSON,
            AppTab.of("Devices", c -> widthFitting(new DeviceSelector(c.devices()), "devices-scroll")),
            AppTab.of("NCCL", c -> widthFitting(new NcclPanel(c.nccl()), "nccl-scroll")),
            AppTab.of(
                    "Runs",
                    c -> new RunsView(
                            c.runs(),
                            c.evaluations()::evaluate,
                            () -> c.services()
                                    .dialogs()
                                    .chooseTensorBoardLogs(c.files().lastFolder()))),
            AppTab.of(
                    "Queue",
                    c -> new QueueView(c.queue(), c.controller(), c.services().dialogs(), c.runActions()::openRun)),
            AppTab.of(
                    "Sweeps",
                    c -> new SweepsView(c.sweeps(), c.controller(), c.services().dialogs(), c.files()::lastFolder))));

    private final List<AppTab> tabs;

    private AppTabs(List<AppTab> tabs) {
        this.tabs = List.copyOf(tabs);
    }

    public static AppTabs standard() {
        return STANDARD;
    }

    /** These tabs and more after them (a plug-in's, a test's). */
    public AppTabs with(AppTab... more) {
        List<AppTab> all = new ArrayList<>(tabs);
        all.addAll(List.of(more));
        return new AppTabs(all);
    }

    public List<AppTab> all() {
        return tabs;
    }

    /** Scrolls down only: long texts wrap to the pane's width instead of running off to the right. */
    private static ScrollPane widthFitting(Node content, String id) {
        ScrollPane pane = new ScrollPane(content);
        pane.setFitToWidth(true);
        pane.setId(id);
        return pane;
    }
}
