package org.traindeck.engine.devices.energy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.traindeck.engine.api.runs.EnergyReport;

/**
 * A run's energy as its folder keeps it, so that the runs table can say it, reasons included: {@code {"wattHours":
 * {"cpu": 1.5}, "unavailable": null, "notes": [...], "stages": [{"stage": "main", "wattHours": 1.5, "samples":
 * 12000}]}}. Written whole (a temporary file renamed) when an attempt ends; a resumed run's latest attempt replaces it,
 * as its energy metrics do.
 */
public final class EnergyFile {

    private static final ObjectMapper JSON = new ObjectMapper();

    private EnergyFile() {}

    public static void write(Path file, EnergyReport report) throws IOException {
        ObjectNode o = JSON.createObjectNode();
        ObjectNode wh = o.putObject("wattHours");
        report.wattHours().forEach(wh::put);
        if (report.unavailable() == null) {
            o.putNull("unavailable");
        } else {
            o.put("unavailable", report.unavailable());
        }
        ArrayNode notes = o.putArray("notes");
        report.notes().forEach(notes::add);
        ArrayNode stages = o.putArray("stages");
        for (EnergyReport.StageEnergy s : report.stages()) {
            stages.addObject()
                    .put("stage", s.stage())
                    .put("wattHours", s.wattHours())
                    .put("samples", s.samples());
        }
        Path temp = file.resolveSibling("." + file.getFileName() + ".tmp");
        Files.write(temp, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(o));
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /**
     * The report {@code file} holds, or null when there is none.
     *
     * @throws IOException a file that is not such a report, naming it
     */
    public static EnergyReport read(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            return null;
        }
        JsonNode o = JSON.readTree(file.toFile());
        if (o == null || !o.path("wattHours").isObject()) {
            throw new IOException(file + ": not an energy record (no \"wattHours\" object)");
        }
        Map<String, Double> wh = new LinkedHashMap<>();
        o.path("wattHours")
                .fields()
                .forEachRemaining(f -> wh.put(f.getKey(), f.getValue().asDouble()));
        List<String> notes = new ArrayList<>();
        o.path("notes").forEach(n -> notes.add(n.asText()));
        List<EnergyReport.StageEnergy> stages = new ArrayList<>();
        o.path("stages")
                .forEach(s -> stages.add(new EnergyReport.StageEnergy(
                        s.path("stage").asText(),
                        s.path("wattHours").asDouble(),
                        s.path("samples").asLong())));
        String unavailable =
                o.path("unavailable").isTextual() ? o.path("unavailable").asText() : null;
        if (wh.isEmpty() && unavailable == null) {
            unavailable = EnergyReport.NOT_RECORDED;
        }
        return new EnergyReport(wh, notes, unavailable, stages);
    }
}
