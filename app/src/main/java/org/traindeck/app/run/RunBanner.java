package org.traindeck.app.run;

import javafx.scene.control.Label;

/** The banner above the charts: a run's failure (red) or a warning (amber), hidden by a click. */
final class RunBanner extends Label {

    RunBanner() {
        setId("run-banner");
        setWrapText(true);
        dismiss();
        setMaxWidth(Double.MAX_VALUE);
        setOnMouseClicked(e -> dismiss());
    }

    void say(String message, boolean error) {
        setText(message + "   (click to hide)");
        getStyleClass().setAll("label", error ? "banner-error" : "banner-warning");
        setVisible(true);
        setManaged(true);
    }

    void dismiss() {
        setVisible(false);
        setManaged(false);
    }
}
