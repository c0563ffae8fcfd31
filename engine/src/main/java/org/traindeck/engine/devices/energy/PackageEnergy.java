package org.traindeck.engine.devices.energy;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The CPU packages' energy counters under a powercap root ({@code /sys/class/powercap}): each top-level
 * {@code intel-rapl:N} zone's {@code energy_uj}, a counter in microjoules that wraps at {@code max_energy_range_uj}
 * (AMD's RAPL appears under the same names). Since Linux 5.10 the counters are readable by root only on most
 * distributions; then {@link #unavailableReason()} says so.
 */
public final class PackageEnergy {

    /** What {@link #shortReason()} says when the machine has no counters at all. */
    public static final String NO_COUNTERS = "no RAPL counters";

    private final List<Zone> zones;
    private final String unavailable;
    private final String shortReason;

    private record Zone(Path dir, long maxRange, long[] last, long[] total) {}

    private PackageEnergy(List<Zone> zones, String unavailable, String shortReason) {
        this.zones = zones;
        this.unavailable = unavailable;
        this.shortReason = shortReason;
    }

    /** The packages under {@code root}, each read once now as its starting point. */
    public static PackageEnergy open(Path root) {
        if (!Files.isDirectory(root)) {
            return new PackageEnergy(
                    List.of(),
                    "there is no " + root + " (no RAPL energy counters on this machine or in this container)",
                    NO_COUNTERS);
        }
        List<Zone> zones = new ArrayList<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(root, "intel-rapl:*")) {
            for (Path dir : dirs) {
                // intel-rapl:0 is a package; intel-rapl:0:0 (its cores) is inside it and counted there
                if (dir.getFileName().toString().chars().filter(c -> c == ':').count() == 1) {
                    zones.add(new Zone(
                            dir,
                            Long.parseLong(Files.readString(dir.resolve("max_energy_range_uj"))
                                    .strip()),
                            new long[] {
                                Long.parseLong(Files.readString(dir.resolve("energy_uj"))
                                        .strip())
                            },
                            new long[1]));
                }
            }
        } catch (IOException e) {
            return new PackageEnergy(
                    List.of(),
                    "the RAPL counters under " + root + " cannot be read (" + e.getMessage()
                            + "): they are readable by root only on most Linux systems since 5.10",
                    "RAPL counters readable by root only");
        } catch (NumberFormatException e) {
            return new PackageEnergy(
                    List.of(),
                    "a RAPL counter under " + root + " is not a number (" + e.getMessage() + ")",
                    "RAPL counters unreadable");
        }
        if (zones.isEmpty()) {
            return new PackageEnergy(List.of(), root + " has no intel-rapl package zones", NO_COUNTERS);
        }
        zones.sort((a, b) -> a.dir().getFileName().compareTo(b.dir().getFileName()));
        return new PackageEnergy(List.copyOf(zones), null, null);
    }

    /** Null when the counters can be read, else why not. */
    public String unavailableReason() {
        return unavailable;
    }

    /** The same in a few words ("no RAPL counters"), for a table's cell; null when the counters can be read. */
    public String shortReason() {
        return shortReason;
    }

    /**
     * Reads every counter and adds what it moved since the last read; a counter below its last value wrapped once.
     * Read more often than a counter wraps (minutes at full load: {@code max_energy_range_uj} is ~262 kJ on most CPUs).
     *
     * @return null, or why a counter could not be read this time (the reading is skipped, nothing guessed)
     */
    public synchronized String sample() {
        for (Zone z : zones) {
            long now;
            try {
                now = Long.parseLong(
                        Files.readString(z.dir().resolve("energy_uj")).strip());
            } catch (IOException | NumberFormatException e) {
                return "cannot read " + z.dir().resolve("energy_uj") + ": " + e.getMessage();
            }
            long moved = now >= z.last()[0] ? now - z.last()[0] : now + z.maxRange() - z.last()[0];
            z.total()[0] += moved;
            z.last()[0] = now;
        }
        return null;
    }

    /** The energy counted so far, all packages together. */
    public synchronized double wattHours() {
        long microjoules = 0;
        for (Zone z : zones) {
            microjoules += z.total()[0];
        }
        return microjoules / 1e6 / 3600.0;
    }

    public int packages() {
        return zones.size();
    }
}
