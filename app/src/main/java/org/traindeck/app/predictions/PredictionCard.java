package org.traindeck.app.predictions;

import java.io.ByteArrayInputStream;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javafx.application.Platform;
import javafx.geometry.Pos;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressBar;
import javafx.scene.image.Image;
import javafx.scene.image.ImageView;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.VBox;
import javafx.scene.text.Text;
import javafx.scene.text.TextFlow;
import org.traindeck.engine.events.SamplesEvent;

/**
 * One example's prediction: its pictures (input, masks over it, slices, reconstruction) scaled up with crisp pixels,
 * its true and predicted label with the top classes as bars, or its prompt and the text the model went on with.
 * Pictures are decoded on a thread of their own, never on the FX thread.
 */
final class PredictionCard extends VBox {

    private static final ExecutorService DECODER = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "traindeck-predictions-decoder");
        t.setDaemon(true);
        return t;
    });

    /** The longer side of a picture on screen. */
    static final double PICTURE_SIZE = 112;

    static final double TEXT_WIDTH = 380;

    PredictionCard(SamplesEvent.Sample sample) {
        super(4);
        getStyleClass().add("prediction-card");
        setId("prediction-" + sample.index());
        Label title = new Label("example " + sample.index());
        title.getStyleClass().add("prediction-title");
        getChildren().add(title);
        if (!sample.pictures().isEmpty()) {
            FlowPane pictures = new FlowPane(6, 4);
            pictures.setPrefWrapLength(3 * (PICTURE_SIZE + 6));
            for (SamplesEvent.Picture p : sample.pictures()) {
                pictures.getChildren().add(picture(p));
            }
            getChildren().add(pictures);
        }
        if (sample.truth() != null) {
            getChildren().add(line("true: " + sample.truth(), "prediction-truth"));
        }
        if (sample.predicted() != null) {
            boolean right = sample.truth() != null && sample.truth().equals(sample.predicted());
            boolean wrong = sample.truth() != null && !right && !sample.top().isEmpty();
            getChildren()
                    .add(line(
                            "predicted: " + sample.predicted(),
                            right ? "prediction-right" : wrong ? "prediction-wrong" : "prediction-value"));
        }
        for (SamplesEvent.Score s : sample.top()) {
            Label name = new Label(s.label());
            name.setMinWidth(60);
            name.setMaxWidth(150);
            ProgressBar bar = new ProgressBar(s.probability());
            bar.setPrefWidth(90);
            Label p = new Label(String.format(Locale.ROOT, "%.1f %%", 100 * s.probability()));
            p.setMinWidth(52);
            HBox row = new HBox(6, name, bar, p);
            row.setAlignment(Pos.CENTER_LEFT);
            row.getStyleClass().add("prediction-score");
            getChildren().add(row);
        }
        if (sample.prompt() != null || sample.text() != null) {
            Text prompt = new Text(sample.prompt() == null ? "" : sample.prompt());
            prompt.getStyleClass().add("prediction-prompt");
            Text text = new Text(sample.text() == null ? "" : sample.text());
            text.getStyleClass().add("prediction-generated");
            TextFlow flow = new TextFlow(prompt, text);
            flow.setPrefWidth(TEXT_WIDTH);
            flow.setMaxWidth(TEXT_WIDTH);
            flow.getStyleClass().add("prediction-text");
            getChildren().add(flow);
        }
    }

    private static Label line(String text, String style) {
        Label l = new Label(text);
        l.setWrapText(true);
        l.setMaxWidth(TEXT_WIDTH);
        l.getStyleClass().add(style);
        return l;
    }

    private static VBox picture(SamplesEvent.Picture p) {
        ImageView view = new ImageView();
        DECODER.execute(() -> {
            Image image = new Image(new ByteArrayInputStream(p.png()));
            Platform.runLater(() -> view.setImage(image));
        });
        double scale = PICTURE_SIZE / Math.max(p.width(), p.height());
        view.setFitWidth(p.width() * scale);
        view.setFitHeight(p.height() * scale);
        view.setPreserveRatio(true);
        // small images scaled up: every pixel a crisp square, not a blur
        view.setSmooth(false);
        view.getStyleClass().add("prediction-picture");
        Label label = new Label(p.label());
        label.getStyleClass().add("prediction-picture-label");
        VBox box = new VBox(2, view, label);
        box.setAlignment(Pos.TOP_CENTER);
        return box;
    }
}
