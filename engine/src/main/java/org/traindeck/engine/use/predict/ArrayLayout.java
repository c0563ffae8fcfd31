package org.traindeck.engine.use.predict;

import java.util.Arrays;
import java.util.Locale;
import org.traindeck.engine.config.NumpySource;
import org.traindeck.engine.config.SourceConfig;

/**
 * Where an array's channels are: last ([N, H, W, C] and [N, D, H, W, C], as NumPy and Keras keep images and as a numpy
 * source reads them by default) or first ([N, C, H, W], PyTorch's); the names are a numpy source's {@code layout}.
 */
public enum ArrayLayout {
    CHANNELS_LAST("channelsLast"),
    CHANNELS_FIRST("channelsFirst");

    public final String json;

    ArrayLayout(String json) {
        this.json = json;
    }

    /** The layout a source's {@code channelsLast} says. */
    public static ArrayLayout of(boolean channelsLast) {
        return channelsLast ? CHANNELS_LAST : CHANNELS_FIRST;
    }

    /** A numpy source's layout; channels last for every other source (TrainDeck's layout for arrays). */
    public static ArrayLayout of(SourceConfig source) {
        return source instanceof NumpySource n ? of(n.channelsLast()) : CHANNELS_LAST;
    }

    /** The layout of this name, or null when it names none. */
    public static ArrayLayout parse(String name) {
        return Arrays.stream(values())
                .filter(l -> l.json.equals(name) || l.name().equalsIgnoreCase(name))
                .findFirst()
                .orElse(null);
    }

    /** "channelsLast|channelsFirst", for messages. */
    public static String choices() {
        return CHANNELS_LAST.json + "|" + CHANNELS_FIRST.json;
    }

    /** "channels last", for messages. */
    public String words() {
        return name().toLowerCase(Locale.ROOT).replace('_', ' ');
    }
}
