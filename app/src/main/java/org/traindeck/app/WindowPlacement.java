package org.traindeck.app;

import javafx.stage.Stage;

/**
 * Where the window was and how large, kept across restarts: the window's own outer size is saved and given back to the
 * window, never to its scene (the scene is the window less the title bar, so a scene as large as the saved window
 * made the window 25 px taller on every start), and a maximized window starts maximized, its normal size kept for when
 * it is restored.
 */
final class WindowPlacement {

    private final Stage stage;
    private double x;
    private double y;
    private double width;
    private double height;

    private WindowPlacement(Stage stage) {
        this.stage = stage;
    }

    /** Places the stage as the preferences say (call it once its scene is set, before it is shown). */
    static WindowPlacement restore(Stage stage, AppPreferences preferences) {
        WindowPlacement p = new WindowPlacement(stage);
        double[] bounds = preferences.windowBounds();
        p.x = bounds[0];
        p.y = bounds[1];
        p.width = bounds[2];
        p.height = bounds[3];
        stage.setWidth(p.width);
        stage.setHeight(p.height);
        if (!Double.isNaN(p.x)) {
            stage.setX(p.x);
            stage.setY(p.y);
        }
        stage.setMaximized(preferences.maximized());
        // the normal bounds follow the window while it is not maximized
        stage.xProperty().addListener((o, a, b) -> p.follow());
        stage.yProperty().addListener((o, a, b) -> p.follow());
        stage.widthProperty().addListener((o, a, b) -> p.follow());
        stage.heightProperty().addListener((o, a, b) -> p.follow());
        return p;
    }

    private void follow() {
        if (!stage.isMaximized() && !stage.isIconified() && !stage.isFullScreen()) {
            x = stage.getX();
            y = stage.getY();
            width = stage.getWidth();
            height = stage.getHeight();
        }
    }

    void save(AppPreferences preferences) {
        follow();
        preferences.windowBounds(x, y, width, height);
        preferences.maximized(stage.isMaximized());
    }
}
