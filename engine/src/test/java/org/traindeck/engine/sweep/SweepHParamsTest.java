package org.traindeck.engine.sweep;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.cli.MainAccess;
import org.traindeck.engine.devices.NvidiaSmi;
import org.traindeck.engine.devices.OshiHostProbe;
import org.traindeck.engine.sinks.ProtoFields;
import org.traindeck.engine.sinks.TfEventFileReader;

/**
 * A sweep's HParams records, decoded here field by field from the protobuf wire format (independently of the
 * encoder), checked against TensorBoard's plugin_data.proto and api.proto.
 */
class SweepHParamsTest {

    private static final String PARAM = "stages[0].optimizer.learningRate";

    private static Path only(Path folder, String suffix) throws IOException {
        try (Stream<Path> s = Files.list(folder)) {
            List<Path> found = s.filter(p -> p.getFileName().toString().startsWith("events.out.tfevents.")
                            && p.getFileName().toString().endsWith(suffix))
                    .toList();
            assertThat(found).as(suffix + " in " + folder).hasSize(1);
            return found.get(0);
        }
    }

    /** The one HParams summary value in an event file (after its file-version header): tag, plugin data, tensor. */
    private static ProtoFields value(Path file, String tag) throws IOException {
        List<byte[]> records = TfEventFileReader.records(file);
        assertThat(records).hasSize(2);
        assertThat(ProtoFields.parse(records.get(0)).string(3)).isEqualTo("brain.Event:2");
        ProtoFields value = ProtoFields.parse(records.get(1)).message(5).message(1);
        assertThat(value.string(1)).isEqualTo(tag);
        ProtoFields tensor = value.message(8);
        assertThat(tensor.varint(1)).as("DT_FLOAT").isEqualTo(1);
        assertThat(tensor.has(2)).as("a scalar's (empty) shape").isTrue();
        ProtoFields plugin = value.message(9).message(1);
        assertThat(plugin.string(1)).isEqualTo("hparams");
        return ProtoFields.parse((byte[]) plugin.all(2).get(0));
    }

    @Test
    void aSweepShowsInTensorBoardsHParamsDashboard(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("base.json"), """
                {"name": "base", "outputDir": "runs", "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "samples": 300, "features": 4}, "validationSplit": 0.2},
                 "stages": [{"epochs": 2, "batchSize": 20, "optimizer": {"type": "adam", "learningRate": 0.001}}]}
                """);
        Path sweep = dir.resolve("sweep.json");
        Files.writeString(sweep, """
                {"name": "hp", "base": "base.json", "parameters": {"%s": [0.0005, 0.002]},
                 "metric": "val/accuracy", "goal": "max"}
                """.formatted(PARAM));
        MainAccess.Result r = MainAccess.run(NvidiaSmi.system(), new OshiHostProbe(), "sweep", sweep.toString());
        assertThat(r.exitCode()).as(r.stderr()).isZero();
        Path runs = dir.resolve("runs");

        // the experiment, in the log folder's root run: HParamsPluginData{experiment=2}
        ProtoFields data = value(only(runs, ".sweep-hp.hparams"), "_hparams_/experiment");
        assertThat(data.has(1)).as("version 0, left out").isFalse();
        ProtoFields experiment = data.message(2);
        assertThat(experiment.string(6)).isEqualTo("hp");
        ProtoFields param = experiment.message(4);
        assertThat(param.string(1)).isEqualTo(PARAM);
        assertThat(param.varint(4)).as("DATA_TYPE_FLOAT64").isEqualTo(3);
        List<Double> domain = new ArrayList<>();
        for (ProtoFields v : param.message(5).messages(1)) {
            domain.add(v.doubleValue(2));
        }
        assertThat(domain).containsExactly(0.0005, 0.002);
        ProtoFields metric = experiment.message(5);
        assertThat(metric.message(1).string(2)).isEqualTo("val/accuracy");
        assertThat(metric.varint(5)).as("DATASET_VALIDATION").isEqualTo(2);

        double[] rates = {0.0005, 0.002};
        for (int i = 0; i < 2; i++) {
            Path board = runs.resolve("hp-" + (i + 1)).resolve("tensorboard");
            // SessionStartInfo{hparams=1 {key=1, value=2 {number_value=2}}} in the run the trial's scalars are in
            ProtoFields start = value(only(board, ".session.hparams"), "_hparams_/session_start_info")
                    .message(3);
            ProtoFields entry = start.message(1);
            assertThat(entry.string(1)).isEqualTo(PARAM);
            assertThat(entry.message(2).doubleValue(2)).isEqualTo(rates[i]);
            assertThat(start.doubleValue(5)).isPositive();
            // SessionEndInfo{status=1 STATUS_SUCCESS}
            ProtoFields end = value(only(board, ".end.hparams"), "_hparams_/session_end_info")
                    .message(4);
            assertThat(end.varint(1)).isEqualTo(1);
            // and the metric the experiment names is a scalar of that run
            Path scalars;
            try (Stream<Path> s = Files.list(board)) {
                scalars = s.filter(p -> !p.getFileName().toString().endsWith(".hparams"))
                        .findFirst()
                        .orElseThrow();
            }
            assertThat(TfEventFileReader.read(scalars))
                    .anySatisfy(e -> assertThat(e.tag()).isEqualTo("val/accuracy"));
        }

        // running the sweep again writes no second experiment
        MainAccess.run(NvidiaSmi.system(), new OshiHostProbe(), "sweep", sweep.toString());
        only(runs, ".sweep-hp.hparams");
    }
}
