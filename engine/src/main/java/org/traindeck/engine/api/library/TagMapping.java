package org.traindeck.engine.api.library;

import java.util.LinkedHashMap;
import java.util.Map;
import org.traindeck.engine.events.MetricNames;

/**
 * Which TrainDeck metric each tag of another tool's logs stands for ({@code loss} → {@code train/loss}), so that its
 * curves are drawn and compared with TrainDeck's; a tag it does not name keeps its own name.
 */
public record TagMapping(Map<String, String> tagToMetric) {

    /** The names PyTorch examples, Keras and TensorFlow tutorials most often log under. */
    public static final TagMapping DEFAULT = new TagMapping(defaults());

    public TagMapping {
        tagToMetric = Map.copyOf(new LinkedHashMap<>(tagToMetric));
    }

    private static Map<String, String> defaults() {
        Map<String, String> m = new LinkedHashMap<>();
        for (String tag : new String[] {"loss", "train_loss", "Loss/train", MetricNames.TRAIN_LOSS}) {
            m.put(tag, MetricNames.TRAIN_LOSS);
        }
        for (String tag :
                new String[] {"val_loss", "Loss/val", "Loss/validation", "validation/loss", MetricNames.VAL_LOSS}) {
            m.put(tag, MetricNames.VAL_LOSS);
        }
        for (String tag : new String[] {"val_acc", "val_accuracy", "Accuracy/val", "Accuracy/validation"}) {
            m.put(tag, MetricNames.VAL_ACCURACY);
        }
        for (String tag : new String[] {"lr", "learning_rate", "Learning rate", "LearningRate"}) {
            m.put(tag, MetricNames.LR);
        }
        return m;
    }

    /** The metric a tag is drawn as: the mapping's, else the tag itself. */
    public String metricOf(String tag) {
        return tagToMetric.getOrDefault(tag, tag);
    }

    /** This mapping with {@code tag} drawn as {@code metric}. */
    public TagMapping with(String tag, String metric) {
        Map<String, String> m = new LinkedHashMap<>(tagToMetric);
        m.put(tag, metric);
        return new TagMapping(m);
    }

    /**
     * The default mapping with {@code TAG=METRIC} pairs over it, separated by commas or new lines
     * ({@code loss=train/loss, acc=val/accuracy}); an empty text gives the default.
     *
     * @throws IllegalArgumentException naming the pair that is not {@code TAG=METRIC}
     */
    public static TagMapping parse(String text) {
        TagMapping mapping = DEFAULT;
        for (String pair : text.split("[,\\n]")) {
            String p = pair.strip();
            if (p.isEmpty()) {
                continue;
            }
            int eq = p.lastIndexOf('=');
            if (eq <= 0 || eq == p.length() - 1) {
                throw new IllegalArgumentException(
                        "\"" + p + "\" is not a tag mapping: write TAG=METRIC, for example loss=train/loss");
            }
            mapping =
                    mapping.with(p.substring(0, eq).strip(), p.substring(eq + 1).strip());
        }
        return mapping;
    }
}
