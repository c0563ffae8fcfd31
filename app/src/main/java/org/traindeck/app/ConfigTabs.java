package org.traindeck.app;

import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;

/**
 * The window's config side: a tab pane with every tab of an {@link AppTabs}, in order, each built when first chosen
 * unless it is shown first; the form's Edit in JSON selects the JSON tab.
 */
final class ConfigTabs {

    private ConfigTabs() {}

    static TabPane of(AppTabs appTabs, TabContext context) {
        TabPane tabs = new TabPane();
        for (AppTab t : appTabs.all()) {
            tabs.getTabs().add(tabOf(t, context));
        }
        tabs.setId("config-tabs");
        context.form()
                .onEditInJson(() -> tabs.getTabs().stream()
                        .filter(t -> AppTabs.JSON.id().equals(t.getId()))
                        .findFirst()
                        .ifPresent(t -> tabs.getSelectionModel().select(t)));
        tabs.setTabClosingPolicy(TabPane.TabClosingPolicy.UNAVAILABLE);
        return tabs;
    }

    /** A tab of the registry; all but the first one shown are built when first chosen. */
    private static Tab tabOf(AppTab spec, TabContext context) {
        Tab t = new Tab(spec.title());
        t.setId(spec.id());
        spec.attach(t, context);
        if (spec.eager()) {
            t.setContent(spec.content(context));
        } else {
            t.selectedProperty().addListener((o, was, selected) -> {
                if (selected && t.getContent() == null) {
                    t.setContent(spec.content(context));
                }
            });
        }
        return t;
    }
}
