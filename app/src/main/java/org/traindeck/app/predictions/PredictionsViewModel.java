package org.traindeck.app.predictions;

import java.util.ArrayList;
import java.util.List;
import javafx.beans.property.IntegerProperty;
import javafx.beans.property.SimpleIntegerProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.traindeck.engine.events.SampleHistory;
import org.traindeck.engine.events.SamplesEvent;

/**
 * The sample predictions of the run being shown, interval by interval, for the Predictions view: the last intervals
 * and a thinned history of older ones ({@link SampleHistory}, as the run folder keeps them), so memory stays bounded
 * on long runs. Which interval is shown follows the newest until the user picks an earlier one. FX thread only.
 */
public final class PredictionsViewModel {

    private final ObservableList<SamplesEvent> intervals = FXCollections.observableArrayList();
    private final List<Integer> ordinals = new ArrayList<>();
    private final IntegerProperty selected = new SimpleIntegerProperty(-1);
    private int made;
    private boolean following = true;

    /** A new interval's predictions. */
    public void accept(SamplesEvent event) {
        int ordinal = made++;
        intervals.add(event);
        ordinals.add(ordinal);
        int shown = selected.get();
        for (int i = ordinals.size() - 1; i >= 0; i--) {
            if (!SampleHistory.keeps(ordinals.get(i), made)) {
                ordinals.remove(i);
                intervals.remove(i);
                if (shown >= i) {
                    shown--;
                }
            }
        }
        selected.set(following || shown < 0 ? intervals.size() - 1 : shown);
    }

    /** Shows interval {@code index} of {@link #intervals()}; the newest means following the run again. */
    public void select(int index) {
        if (intervals.isEmpty()) {
            return;
        }
        int i = Math.max(0, Math.min(intervals.size() - 1, index));
        following = i == intervals.size() - 1;
        selected.set(i);
    }

    public ObservableList<SamplesEvent> intervals() {
        return FXCollections.unmodifiableObservableList(intervals);
    }

    /** The position in {@link #intervals()} of the interval shown; -1 before the first. */
    public IntegerProperty selectedProperty() {
        return selected;
    }

    public SamplesEvent shown() {
        int i = selected.get();
        return i >= 0 && i < intervals.size() ? intervals.get(i) : null;
    }

    public void clear() {
        intervals.clear();
        ordinals.clear();
        made = 0;
        following = true;
        selected.set(-1);
    }
}
