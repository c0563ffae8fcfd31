package org.traindeck.engine.config.read;

import java.util.ArrayList;
import java.util.List;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.JsonLocations;

/**
 * Collects problems found while reading one config, each located through the parsed document's positions. After
 * {@link #MAX_SHOWN} it only counts them, and a last problem says how many more there were.
 */
final class Problems {

    static final int MAX_SHOWN = 100;

    private final JsonLocations locations;
    private final List<ConfigProblem> list = new ArrayList<>();
    private int moreErrors;
    private int moreWarnings;

    Problems(JsonLocations locations) {
        this.locations = locations;
    }

    void error(String path, String message) {
        if (list.size() >= MAX_SHOWN) {
            moreErrors++;
            return;
        }
        list.add(ConfigProblem.error(path, message, locations.of(path)));
    }

    /** An error whose message names what it is about ("unknown layer type 'x'"): shown without the path in front. */
    void errorNamingItself(String path, String message) {
        if (list.size() >= MAX_SHOWN) {
            moreErrors++;
            return;
        }
        JsonLocations.Position at = locations.of(path);
        list.add(new ConfigProblem(
                ConfigProblem.Severity.ERROR,
                path,
                message,
                at == null ? 0 : at.line(),
                at == null ? 0 : at.column(),
                true));
    }

    void warning(String path, String message) {
        if (list.size() >= MAX_SHOWN) {
            moreWarnings++;
            return;
        }
        list.add(ConfigProblem.warning(path, message, locations.of(path)));
    }

    /** Whether more problems are being counted than shown (callers can skip costly advice such as "did you mean"). */
    boolean full() {
        return list.size() >= MAX_SHOWN;
    }

    boolean hasErrors() {
        return moreErrors > 0 || list.stream().anyMatch(ConfigProblem::isError);
    }

    List<ConfigProblem> all() {
        if (moreErrors + moreWarnings == 0) {
            return List.copyOf(list);
        }
        List<ConfigProblem> out = new ArrayList<>(list);
        String more = "… and " + (moreErrors + moreWarnings) + " more problem(s) (" + moreErrors + " error(s), "
                + moreWarnings + " warning(s)) not listed: fix these first";
        out.add(moreErrors > 0 ? ConfigProblem.error("", more, null) : ConfigProblem.warning("", more, null));
        return List.copyOf(out);
    }
}
