package org.traindeck.app.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.traindeck.engine.api.runs.EnergyReport;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.MetricNames;

/** The figures of the end-of-run summary, from a run's events. */
class EndOfRunSummaryTest {

    private static MetricEvent metric(int stage, long step, String name, double value) {
        return new MetricEvent("r", "s" + stage, stage, 0, step, 0, step, name, value, null);
    }

    @Test
    void bestAndFinalFiguresPerStage() {
        List<EngineEvent> history = List.of(
                metric(0, 10, MetricNames.TRAIN_LOSS, 0.9),
                metric(0, 10, MetricNames.VAL_LOSS, 0.8),
                metric(0, 10, MetricNames.VAL_ACCURACY, 0.70),
                metric(0, 20, MetricNames.TRAIN_LOSS, 0.5),
                metric(0, 20, MetricNames.VAL_LOSS, 0.85),
                metric(0, 20, MetricNames.VAL_ACCURACY, 0.75),
                metric(1, 30, MetricNames.TRAIN_LOSS, 0.25),
                // per-device figures are not the run's
                new MetricEvent("r", "s1", 1, 0, 30, 0, 30, MetricNames.TRAIN_LOSS, 99, "cpu:0"));
        RunResult result = new RunResult(
                RunResult.Status.STOPPED,
                "",
                Path.of("/runs/r-1"),
                30,
                125,
                Map.of(),
                Path.of("/runs/r-1/checkpoints/step-30.tdckpt"));

        EndOfRunSummary s = EndOfRunSummary.of("r", result, history);
        assertThat(s.title()).isEqualTo("Run stopped: r");
        assertThat(s.detail()).isEqualTo("30 steps in 2 min 5 s; Resume continues from step-30.tdckpt");
        assertThat(s.stages())
                .containsExactly(
                        "Stage \"s0\": train loss 0.5000 · val loss best 0.8000, final 0.8500 · val accuracy best 75.00 %, final 75.00 %",
                        "Stage \"s1\": train loss 0.2500");
        assertThat(s.runDir()).isEqualTo(Path.of("/runs/r-1"));
    }

    @Test
    void theEnergyTheRunUsedFollowsItsSteps() {
        RunResult result = new RunResult(
                RunResult.Status.FINISHED,
                "",
                Path.of("/runs/r"),
                60,
                10,
                Map.of("energy/gpu0_wh", 12.34, "val/loss", 0.5),
                null);

        assertThat(EndOfRunSummary.of("r", result, List.of()).detail())
                .isEqualTo("60 steps in 10.0 s · energy: 12.3 Wh (gpu0 12.3 Wh)");
    }

    @Test
    void theEnergyRecordIsSaidByStageOrWithWhyThereIsNone() {
        RunResult result = new RunResult(RunResult.Status.FINISHED, "", Path.of("/runs/r"), 60, 10, Map.of(), null);
        EnergyReport measured = new EnergyReport(Map.of("cpu", 1.5), List.of())
                .withStages(List.of(new EnergyReport.StageEnergy("main", 1.5, 12_000)));

        assertThat(EndOfRunSummary.of("r", result, List.of(), measured).detail())
                .isEqualTo("60 steps in 10.0 s · energy: 1.5 Wh (cpu 1.5 Wh); stage \"main\" 1.5 Wh,"
                        + " 0.125 Wh per 1,000 samples");
        assertThat(EndOfRunSummary.of(
                                "r",
                                result,
                                List.of(),
                                EnergyReport.unavailable("no RAPL counters or GPU power readings", List.of()))
                        .detail())
                .isEqualTo("60 steps in 10.0 s · energy: n/a (no RAPL counters or GPU power readings)");
    }

    @Test
    void eachTaskSaysItsOwnFigure() {
        List<EngineEvent> history = List.of(
                new MetricEvent("r", "seg", 0, 0, 10, 0, 10, MetricNames.VAL_MEAN_IOU, 0.62, null),
                new MetricEvent("r", "seg", 0, 0, 20, 0, 20, MetricNames.VAL_MEAN_IOU, 0.87, null),
                new MetricEvent("r", "seg", 0, 0, 30, 0, 30, MetricNames.VAL_MEAN_IOU, 0.86, null),
                new MetricEvent("r", "lm", 1, 0, 40, 0, 40, MetricNames.VAL_PERPLEXITY, 11.2, null),
                new MetricEvent("r", "lm", 1, 0, 50, 0, 50, MetricNames.VAL_PERPLEXITY, 10.5, null),
                new MetricEvent("r", "ae", 2, 0, 60, 0, 60, MetricNames.VAL_PSNR, 30.84, null));
        RunResult result = new RunResult(RunResult.Status.FINISHED, "", Path.of("/runs/r"), 60, 10, Map.of(), null);

        assertThat(EndOfRunSummary.of("r", result, history).stages())
                .containsExactly(
                        "Stage \"seg\": · val mean IoU best 0.8700, final 0.8600",
                        "Stage \"lm\": · val perplexity best 10.500, final 10.500",
                        "Stage \"ae\": · val PSNR best 30.84 dB, final 30.84 dB");
    }

    @Test
    void aFailedRunSaysWhy() {
        RunResult failed = new RunResult(
                RunResult.Status.FAILED, "the loss became NaN at step 7", Path.of("/runs/x"), 7, 3.25, Map.of(), null);
        EndOfRunSummary s = EndOfRunSummary.of("x", failed, List.of());
        assertThat(s.title()).isEqualTo("Run failed: x");
        assertThat(s.detail()).isEqualTo("7 steps in 3.3 s. the loss became NaN at step 7");
        assertThat(s.stages()).isEmpty();
    }

    @Test
    void durationsReadAsPeopleSayThem() {
        assertThat(EndOfRunSummary.duration(42.04)).isEqualTo("42.0 s");
        assertThat(EndOfRunSummary.duration(3725)).isEqualTo("1 h 2 min");
    }
}
