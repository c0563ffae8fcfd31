package org.traindeck.app;

import atlantafx.base.theme.PrimerDark;
import atlantafx.base.theme.PrimerLight;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import javafx.animation.KeyFrame;
import javafx.animation.Timeline;
import javafx.application.Application;
import javafx.geometry.Orientation;
import javafx.scene.Scene;
import javafx.scene.control.Alert;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TabPane;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.VBox;
import javafx.stage.Stage;
import javafx.stage.Window;
import javafx.util.Duration;
import org.traindeck.app.config.ConfigDocument;
import org.traindeck.app.config.ConfigForm;
import org.traindeck.app.config.ModelSummaryViewModel;
import org.traindeck.app.config.NcclViewModel;
import org.traindeck.app.devices.DevicesViewModel;
import org.traindeck.app.evaluate.Evaluations;
import org.traindeck.app.run.Dashboard;
import org.traindeck.app.run.RunController;
import org.traindeck.app.runs.QueueViewModel;
import org.traindeck.app.runs.RunsViewModel;
import org.traindeck.app.runs.SweepsViewModel;
import org.traindeck.app.tasks.FxTaskExecutor;
import org.traindeck.app.tasks.TaskExecutor;
import org.traindeck.app.ui.Dialogs;
import org.traindeck.app.ui.FxDialogs;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.api.runs.RunResult;

/**
 * The TrainDeck window: the config side (form, raw JSON, devices, NCCL) and the run side (charts, messages, status),
 * with a toolbar for New / Open / Save / Save As and Start / Resume / Stop. Every slow call goes to a worker thread;
 * a 10 Hz timer applies queued engine events and redraws the charts whose data changed.
 */
public final class MainWindow {

    /**
     * What the window needs from outside: dialogs, the engine, where slow work goes, preferences, where samples are.
     */
    public record Services(Dialogs dialogs, Engine engine, TaskExecutor tasks, AppPreferences preferences, Path home) {}

    private final Stage stage;
    private final Services services;
    private final ConfigDocument document;
    private final ConfigForm form;
    private final DevicesViewModel deviceModel;
    private final NcclViewModel ncclModel;
    private final ModelSummaryViewModel modelSummary;
    /** Summaries compile models (100 ms and more each): on a thread of their own, so that saves never wait behind them. */
    private final TaskExecutor summaryTasks = new FxTaskExecutor();

    private final Dashboard dashboard = new Dashboard();
    private final RunController controller;
    private final RunsViewModel runs;
    private final Evaluations evaluations;
    private final QueueViewModel queue;
    private final SweepsViewModel sweeps;
    private final ConfigFileActions files;
    private final RunActions runActions;
    private final TabContext context;
    private final Timeline refresher;
    private final Scene scene;
    private final SplitPane split;
    static final String MAIN_SPLIT = "main";
    static final String DASHBOARD_SPLIT = "dashboard";
    private final DeviceFeeds deviceFeeds;
    private boolean closed;
    private MainMenu.Where where;
    private final WindowPlacement placement;

    public MainWindow(Stage stage, Services services, Path initialConfig) {
        this(stage, services, initialConfig, AppTabs.standard());
    }

    /** A window with other tabs on its config side than the standard ones (a test's). */
    public MainWindow(Stage stage, Services services, Path initialConfig, AppTabs appTabs) {
        this.stage = stage;
        this.services = services;
        Path samples = services.home().resolve("sample-configs");
        this.document = new ConfigDocument(Files.isDirectory(samples) ? samples : services.home());
        this.form = new ConfigForm(document);
        this.deviceModel = new DevicesViewModel(document);
        this.ncclModel = new NcclViewModel(document);
        this.modelSummary = new ModelSummaryViewModel(document, services.engine()::summarize, summaryTasks);
        // ND4J reads the environment once, when it loads: a summary may load it before any run
        modelSummary.onNd4jLoaded(report -> ncclModel.setReport(report, true));
        this.controller = new RunController(dashboard, services.engine(), services.tasks());
        this.runs = new RunsViewModel(services.engine(), services.tasks(), dashboard.overlays());
        this.evaluations = new Evaluations(stage, services.engine());
        this.queue = new QueueViewModel(services.engine(), services.tasks(), controller);
        this.sweeps = new SweepsViewModel(services.engine(), services.tasks(), controller);
        this.files = new ConfigFileActions(document, services.dialogs(), services.preferences(), services.tasks());
        this.runActions = new RunActions(services, document, controller, dashboard, files);
        this.deviceFeeds = new DeviceFeeds(services.engine(), services.tasks(), deviceModel, dashboard);
        this.context = new TabContext(
                services,
                document,
                form,
                modelSummary,
                deviceModel,
                ncclModel,
                runs,
                evaluations,
                queue,
                sweeps,
                controller,
                runActions,
                files);
        RunSideLinks.clearTheRunWhenTheConfigIsReplaced(context, dashboard);
        this.split = mainSplit(ConfigTabs.of(appTabs, context));
        this.scene = sceneAround(split);
        this.placement = dressStage();
        RunSideLinks.followTheConfigAndTheRuns(context, dashboard);
        refresher = new Timeline(new KeyFrame(Duration.millis(100), e -> tick()));
        refresher.setCycleCount(Timeline.INDEFINITE);
        refresher.play();
        startDevicesAfterFirstLayout();
        files.openInitial(initialConfig, services.home());
    }

    private SplitPane mainSplit(TabPane tabs) {
        SplitPane split = new SplitPane(tabs, dashboard);
        split.setId("main-split");
        split.setOrientation(Orientation.HORIZONTAL);
        // every tab's title in view: a narrower header would scroll the first ones off to the left
        tabs.setMinWidth(520);
        // one column of charts, its controls whole; the divider stops there instead of pushing them off the window
        dashboard.setMinWidth(420);
        split.setDividerPositions(services.preferences().divider(MAIN_SPLIT, 0.38));
        dashboard.split().setDividerPositions(services.preferences().divider(DASHBOARD_SPLIT, 0.82));
        return split;
    }

    /** The window's content: menu and toolbar above the split, the status bar below, at the last window size. */
    private Scene sceneAround(SplitPane split) {
        BorderPane root = new BorderPane(split);
        MainToolbar toolbar = new MainToolbar(
                files, runActions, controller, document, services.preferences().dark());
        toolbar.darkToggle().selectedProperty().addListener((o, a, b) -> applyTheme(b));
        this.where = new MainMenu.Where(
                services.preferences().file(),
                Engine.dataHome(),
                services.home().resolve("docs"));
        MainMenu menu = new MainMenu(
                toolbar,
                services.dialogs(),
                () -> {
                    if (mayClose()) {
                        close();
                        stage.close();
                    }
                },
                where);
        root.setTop(new VBox(menu, toolbar));
        root.setBottom(dashboard.statusBar());
        // laid out at about the window's size from the first pulse (the dividers are fractions of it); the window
        // itself then gets the saved outer size (WindowPlacement)
        double[] bounds = services.preferences().windowBounds();
        Scene scene = new Scene(root, bounds[2], bounds[3]);
        toolbar.installShortcuts(scene);
        return scene;
    }

    /**
     * The stage takes the scene, the theme, the last size, position and state, the icon, a title that follows the file,
     * and asks before it closes over unsaved work.
     */
    private WindowPlacement dressStage() {
        scene.getStylesheets().add(css("traindeck.css"));
        applyTheme(services.preferences().dark());
        stage.setScene(scene);
        WindowPlacement placement = WindowPlacement.restore(stage, services.preferences());
        WindowIdentity.dress(stage, document);
        stage.setOnCloseRequest(e -> {
            if (!mayClose()) {
                e.consume();
            } else {
                close();
            }
        });
        return placement;
    }

    /** Help's dialogs, by name, as the real window shows them (the layout audit shows each). */
    Map<String, Supplier<Alert>> helpDialogs(Window owner) {
        Map<String, Supplier<Alert>> out = new LinkedHashMap<>();
        out.put("Keyboard shortcuts", () -> FxDialogs.infoAlert(owner, "Keyboard shortcuts", MainMenu.SHORTCUTS));
        out.put("Where files go", () -> FxDialogs.infoAlert(owner, "Where files go", where.describe()));
        return out;
    }

    public Scene scene() {
        return scene;
    }

    public ConfigDocument document() {
        return document;
    }

    public Dashboard dashboard() {
        return dashboard;
    }

    public RunController controller() {
        return controller;
    }

    private static String css(String name) {
        return MainWindow.class.getResource("assets/" + name).toExternalForm();
    }

    private void tick() {
        dashboard.drain(50_000); // bounded, so a burst (a past run) cannot hold the FX thread
        deviceModel.refresh();
        dashboard.refreshCharts();
    }

    /**
     * Device discovery and telemetry (OSHI, nvidia-smi, JavaCPP) wait until the window is laid out: on two busy cores
     * they would otherwise slow down the first paint, which needs none of them.
     */
    private void startDevicesAfterFirstLayout() {
        Runnable once = new Runnable() {
            @Override
            public void run() {
                scene.removePostLayoutPulseListener(this);
                if (!closed) {
                    deviceFeeds.start();
                }
            }
        };
        scene.addPostLayoutPulseListener(once);
    }

    private void applyTheme(boolean darkTheme) {
        Application.setUserAgentStylesheet((darkTheme ? new PrimerDark() : new PrimerLight()).getUserAgentStylesheet());
        dashboard.setDark(darkTheme);
        services.preferences().dark(darkTheme);
    }

    /**
     * Starts a run as soon as the config is valid and the devices are known (the --start and --smoke-test options).
     * Completes with the run's result.
     */
    public CompletableFuture<RunResult> startWhenReady() {
        return StartWhenReady.start(context, deviceFeeds);
    }

    /** Unsaved changes and a running run ask first, in one question that says both and offers to save. */
    public boolean mayClose() {
        return QuitQuestion.mayClose(context, () -> {
            close();
            stage.close();
        });
    }

    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        placement.save(services.preferences());
        services.preferences().saveDivider(MAIN_SPLIT, split.getDividerPositions()[0]);
        services.preferences().saveDivider(DASHBOARD_SPLIT, dashboard.split().getDividerPositions()[0]);
        services.preferences().flush();
        refresher.stop();
        controller.shutdown();
        deviceFeeds.close();
        document.shutdown();
        summaryTasks.shutdown();
        evaluations.shutdown();
        services.tasks().shutdown();
    }
}
