package org.traindeck.app;

import java.util.Locale;
import java.util.function.Function;
import javafx.scene.Node;
import javafx.scene.control.Tab;

/**
 * A tab of the window's config side: its title, its id, and its content, built from the window's view models when the
 * tab is first chosen (the first window paints sooner without it). The tabs are listed in {@link AppTabs}.
 */
public interface AppTab {

    String title();

    /** The tab's node id, for style sheets and tests. */
    default String id() {
        return "tab-" + title().toLowerCase(Locale.ROOT);
    }

    /** Built with the window rather than when first chosen: only the tab shown at start. */
    default boolean eager() {
        return false;
    }

    /** The content, built once on the FX thread; slow work goes through the context's task executor. */
    Node content(TabContext context);

    /** Called once the tab exists, before its content: a view model that follows the tab's selection hooks in here. */
    default void attach(Tab tab, TabContext context) {}

    /** A tab built when first chosen. */
    static AppTab of(String title, Function<TabContext, Node> content) {
        return new AppTab() {
            @Override
            public String title() {
                return title;
            }

            @Override
            public Node content(TabContext context) {
                return content.apply(context);
            }
        };
    }
}
