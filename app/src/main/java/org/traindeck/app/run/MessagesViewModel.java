package org.traindeck.app.run;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The run's messages as the window lists them: each with the time it happened, the newest last, the oldest dropped
 * in blocks past 2,000 so a long run's list stays light. FX thread.
 */
public final class MessagesViewModel {

    private static final DateTimeFormatter CLOCK =
            DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneId.systemDefault());
    private static final int MOST = 2000;

    private final ObservableList<String> messages = FXCollections.observableArrayList();
    private final ObservableList<String> readOnly = FXCollections.unmodifiableObservableList(messages);

    /** The messages, oldest first (read-only). */
    public ObservableList<String> messages() {
        return readOnly;
    }

    /** A message about something that happened at {@code millis}. */
    public void add(long millis, String text) {
        add(CLOCK.format(Instant.ofEpochMilli(millis)) + "  " + text);
    }

    /** A message from the window itself (a file that could not be opened, a result). */
    public void add(String text) {
        messages.add(text);
        if (messages.size() > MOST) {
            messages.remove(0, MOST / 4);
        }
    }

    void clear() {
        messages.clear();
    }
}
