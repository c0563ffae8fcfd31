package org.traindeck.engine.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.data.CascadeFixtures;
import org.traindeck.engine.devices.DeviceDiscovery;

/**
 * The model overview of a cascade, as the editor asks for it after every edit: each network compiles against its own
 * stage's data, read once (the run's and the stage's), not again on the next edit; the stages' fit lines are there.
 */
class CascadeOverviewTest {

    private static final String CONFIG = """
            {"name": "cascade",
             "model": {"type": "graph", "layers": [
               {"name": "t", "type": "timestepEmbedding", "inputs": "timestep", "units": 8, "frequencies": 8},
               {"name": "map", "type": "dense", "units": 64},
               {"name": "grid", "type": "reshape", "shape": [1, 8, 8]},
               {"name": "both", "type": "concat", "inputs": ["noisy", "grid"]},
               {"name": "conv", "type": "conv2d", "filters": %d, "kernel": 3}]},
             "data": {"train": {"type": "numpy", "task": "diffusion", "targets": "pictures.npz:low"}},
             "stages": [{"name": "base", "epochs": 1},
               {"name": "up", "epochs": 1,
                "data": {"train": {"type": "numpy", "task": "diffusion", "targets": "pictures.npz:high",
                                   "derive": {"lowres": {"downsample": 2}}}},
                "model": {"type": "graph", "layers": [
                  {"name": "t", "type": "timestepEmbedding", "inputs": "timestep", "units": 8, "frequencies": 8},
                  {"name": "map", "type": "dense", "units": 256},
                  {"name": "grid", "type": "reshape", "shape": [1, 16, 16]},
                  {"name": "both", "type": "concat", "inputs": ["noisy", "lowres", "grid"]},
                  {"name": "conv", "type": "conv2d", "filters": 4, "kernel": 3}]}}]}
            """;

    @Test
    void eachNetworkCompilesAgainstItsStagesDataReadOnce(@TempDir Path dir) throws Exception {
        CascadeFixtures.pictures(dir.resolve("pictures.npz"));
        ModelOverviews overviews = new ModelOverviews(DeviceDiscovery.system());

        ModelOverview first = overviews.of(CONFIG.formatted(4), dir);
        ModelOverview edited = overviews.of(CONFIG.formatted(8), dir);

        assertThat(first.problems()).noneMatch(p -> p.isError());
        assertThat(edited.problems()).noneMatch(p -> p.isError());
        assertThat(edited.compiled()).isTrue();
        assertThat(edited.fit()).hasSize(2);
        assertThat(overviews.dataReads())
                .as("the run's data and stage up's, once each")
                .isEqualTo(2);
    }
}
