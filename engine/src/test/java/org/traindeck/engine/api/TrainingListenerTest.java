package org.traindeck.engine.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.MetricNames;
import org.traindeck.engine.events.TrainingListener;

/** A library user's {@link TrainingListener} hears a real run's moments, in order, each once (issue 34). */
class TrainingListenerTest {

    @TempDir
    Path dir;

    @Test
    void aListenerHearsEachMomentOfARealRun() throws Exception {
        Path config = dir.resolve("run.json");
        Files.writeString(config, """
                {"name": "listened", "outputDir": "runs", "seed": 3, "devices": "cpu",
                 "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "samples": 160, "features": 4, "numClasses": 3},
                          "validationSplit": 0.25},
                 "stages": [{"name": "warm", "epochs": 1, "batchSize": 40},
                            {"name": "main", "epochs": 2, "batchSize": 40}]}
                """);
        List<String> heard = Collections.synchronizedList(new ArrayList<>());
        List<MetricEvent> metrics = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch closed = new CountDownLatch(1);
        RunHandle run = Engine.local().openRun(Configs.load(config));
        run.subscribeLossless(new TrainingListener() {
            @Override
            public void onTrainingBegin(LifecycleEvent begin) {
                heard.add("begin");
            }

            @Override
            public void onStageBegin(LifecycleEvent stage) {
                heard.add("stage " + stage.stage());
            }

            @Override
            public void onTrainingBatch(MetricEvent loss) {
                heard.add("batch " + loss.step());
            }

            @Override
            public void onValidation(MetricEvent figure) {
                heard.add(figure.name());
            }

            @Override
            public void onEpoch(LifecycleEvent epoch) {
                heard.add("epoch " + epoch.stage() + " " + epoch.epoch());
            }

            @Override
            public void onTrainingEnd(LifecycleEvent end) {
                heard.add("end " + end.kind());
            }

            @Override
            public void onMetric(MetricEvent metric) {
                metrics.add(metric);
            }

            @Override
            public void onClose() {
                closed.countDown();
            }
        });
        run.start();
        RunResult result = run.completion().get(3, TimeUnit.MINUTES);
        assertThat(result.status()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(closed.await(1, TimeUnit.MINUTES)).isTrue();

        // 120 training examples in batches of 40: 3 steps an epoch, 9 in all
        List<String> moments = heard.stream()
                .filter(h -> !h.startsWith("batch ") && !h.startsWith("val/"))
                .toList();
        assertThat(moments)
                .containsExactly(
                        "begin",
                        "stage warm",
                        "epoch warm 0",
                        "stage main",
                        "epoch main 0",
                        "epoch main 1",
                        "end RUN_FINISHED");
        assertThat(heard.stream().filter(h -> h.startsWith("batch ")))
                .containsExactly(
                        "batch 1", "batch 2", "batch 3", "batch 4", "batch 5", "batch 6", "batch 7", "batch 8",
                        "batch 9");
        // validation after each epoch, before the epoch's end
        assertThat(heard.get(heard.indexOf("epoch warm 0") - 1)).startsWith("val/");
        assertThat(heard.stream().filter(h -> h.equals(MetricNames.VAL_LOSS))).hasSize(3);
        // onMetric hears every metric, the ones above included
        assertThat(metrics)
                .extracting(MetricEvent::name)
                .contains(MetricNames.TRAIN_LOSS, MetricNames.VAL_ACCURACY, MetricNames.LR);
        assertThat(metrics.stream().filter(m -> m.name().equals(MetricNames.TRAIN_LOSS)))
                .hasSize(9);
    }
}
