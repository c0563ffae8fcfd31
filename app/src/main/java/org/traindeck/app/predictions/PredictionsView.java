package org.traindeck.app.predictions;

import java.util.Locale;
import javafx.collections.ListChangeListener;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.Slider;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import org.traindeck.engine.events.SamplesEvent;

/**
 * The Predictions view: the run's fixed validation examples as the model saw them at one interval (an image with its
 * true and predicted mask, its label and top classes, a prompt and its continuation), and a slider to go back through
 * the earlier intervals; it follows the newest until the slider is moved back.
 */
public final class PredictionsView extends BorderPane {

    static final String EMPTY =
            "The model's predictions on a few fixed validation examples appear here after each epoch"
                    + " when the config asks for them: \"logging\": { \"samples\": { \"count\": 8, \"everyEpochs\": 1 } }.";

    private final PredictionsViewModel model;
    private final Slider slider = new Slider(0, 0, 0);
    private final Label where = new Label();
    private final FlowPane cards = new FlowPane(12, 12);
    private final Label empty = new Label(EMPTY);
    private final ScrollPane scroll = new ScrollPane(cards);
    private SamplesEvent drawn;
    private boolean updatingSlider;

    public PredictionsView(PredictionsViewModel model) {
        this.model = model;
        setId("predictions-view");
        slider.setId("predictions-slider");
        slider.setBlockIncrement(1);
        slider.setMajorTickUnit(1);
        slider.setMinorTickCount(0);
        slider.setSnapToTicks(true);
        slider.setMinWidth(120);
        HBox.setHgrow(slider, Priority.ALWAYS);
        where.setId("predictions-where");
        where.setMinWidth(200);
        HBox top = new HBox(8, new Label("Interval"), slider, where);
        top.setAlignment(Pos.CENTER_LEFT);
        top.setPadding(new Insets(4, 8, 4, 8));
        setTop(top);
        cards.setId("predictions-cards");
        cards.setPadding(new Insets(8));
        scroll.setFitToWidth(true);
        scroll.setId("predictions-scroll");
        empty.setWrapText(true);
        empty.setPadding(new Insets(12));
        empty.setId("predictions-empty");
        slider.valueProperty().addListener((o, a, v) -> {
            if (!updatingSlider) {
                model.select((int) Math.round(v.doubleValue()));
            }
        });
        model.intervals().addListener((ListChangeListener<SamplesEvent>) c -> show());
        model.selectedProperty().addListener((o, a, b) -> show());
        show();
    }

    public PredictionsViewModel model() {
        return model;
    }

    private void show() {
        int n = model.intervals().size();
        updatingSlider = true;
        slider.setMax(Math.max(0, n - 1));
        slider.setValue(Math.max(0, model.selectedProperty().get()));
        slider.setDisable(n < 2);
        updatingSlider = false;
        SamplesEvent e = model.shown();
        if (e == null) {
            where.setText("");
            setCenter(empty);
            drawn = null;
            return;
        }
        where.setText(String.format(
                Locale.ROOT,
                "%d of %d · epoch %d of \"%s\", step %d",
                model.selectedProperty().get() + 1,
                n,
                e.epoch() + 1,
                e.stage(),
                e.step()));
        if (e == drawn) {
            return;
        }
        drawn = e;
        cards.getChildren().clear();
        for (SamplesEvent.Sample s : e.samples()) {
            cards.getChildren().add(new PredictionCard(s));
        }
        if (e.samples().isEmpty()) {
            cards.getChildren()
                    .add(new Label(
                            "This interval has no examples to show (a text model needs a text source's vocabulary)."));
        }
        setCenter(scroll);
    }
}
