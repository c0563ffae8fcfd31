package org.traindeck.engine.devices.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** RAPL counters in a fake powercap folder: packages only (not their sub-zones), wrap-around, and unreadable counters. */
class PackageEnergyTest {

    @TempDir
    Path root;

    private void zone(String name, long energy, long max) throws IOException {
        Path z = Files.createDirectories(root.resolve(name));
        Files.writeString(z.resolve("energy_uj"), energy + "\n");
        Files.writeString(z.resolve("max_energy_range_uj"), max + "\n");
    }

    private void counter(String name, long energy) throws IOException {
        Files.writeString(root.resolve(name).resolve("energy_uj"), energy + "\n");
    }

    @Test
    void countsEachPackageOnceAndFollowsACounterThatWraps() throws IOException {
        zone("intel-rapl:0", 262_000_000_000L, 262_143_328_850L);
        zone("intel-rapl:0:0", 5_000_000, 262_143_328_850L); // the package's cores: inside intel-rapl:0 already
        zone("intel-rapl:1", 1_000_000, 262_143_328_850L);
        PackageEnergy e = PackageEnergy.open(root);
        assertThat(e.unavailableReason()).isNull();
        assertThat(e.packages()).isEqualTo(2);

        counter("intel-rapl:0", 100_000_000L); // wrapped: 143,328,850 µJ to the top, then 100,000,000
        counter("intel-rapl:0:0", 999_000_000L);
        counter("intel-rapl:1", 3_600_000_000L + 1_000_000); // 3,600 J = 1 Wh
        assertThat(e.sample()).isNull();
        assertThat(e.wattHours() * 3600).isCloseTo(143.32885 + 100 + 3600, within(1e-6));
    }

    @Test
    void saysWhyWhenThereIsNothingToRead() throws IOException {
        assertThat(PackageEnergy.open(root.resolve("absent")).unavailableReason())
                .contains("there is no")
                .contains("absent");
        assertThat(PackageEnergy.open(root).unavailableReason()).contains("has no intel-rapl package zones");
        // a counter that cannot be read (as energy_uj is for users other than root since Linux 5.10)
        Path z = Files.createDirectories(root.resolve("intel-rapl:0"));
        Files.createDirectories(z.resolve("energy_uj"));
        Files.writeString(z.resolve("max_energy_range_uj"), "262143328850\n");
        assertThat(PackageEnergy.open(root).unavailableReason())
                .contains("cannot be read")
                .contains("root only");
    }
}
