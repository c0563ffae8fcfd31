package org.traindeck.app.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.ZoneId;
import java.time.ZonedDateTime;
import org.junit.jupiter.api.Test;

/** The run's messages: timed, newest last, bounded, and read-only to the view. */
class MessagesViewModelTest {

    @Test
    void messagesAreTimedKeptInOrderAndBounded() {
        MessagesViewModel m = new MessagesViewModel();
        long at = ZonedDateTime.of(2026, 11, 22, 9, 5, 7, 0, ZoneId.systemDefault())
                .toInstant()
                .toEpochMilli();
        m.add(at, "run started: go");
        m.add("opened a run");
        assertThat(m.messages()).containsExactly("09:05:07  run started: go", "opened a run");
        for (int i = 0; i < 2100; i++) {
            m.add("line " + i);
        }
        assertThat(m.messages().size()).isLessThanOrEqualTo(2000);
        assertThat(m.messages().get(m.messages().size() - 1)).isEqualTo("line 2099");
        assertThatThrownBy(() -> m.messages().add("from the view")).isInstanceOf(UnsupportedOperationException.class);
        m.clear();
        assertThat(m.messages()).isEmpty();
    }
}
