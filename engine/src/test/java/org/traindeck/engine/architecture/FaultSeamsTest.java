package org.traindeck.engine.architecture;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * Tests' fault plans enter production code at its front doors only: the engine facade, the command line, and the
 * queue's and sweep's old constructors that the command line still calls (issue 24: they go when the CLI takes a
 * {@code RunStarter}). Inside, each fault is a narrow hook at the one seam it happens at, so a plan cannot be
 * threaded through the training classes again.
 */
@AnalyzeClasses(packages = "org.traindeck.engine", importOptions = ImportOption.DoNotIncludeTests.class)
class FaultSeamsTest {

    @ArchTest
    static final ArchRule onlyTheFrontDoorsKnowTheFaultPlan = noClasses()
            .that().resideOutsideOfPackages("org.traindeck.engine.faults..", "org.traindeck.engine.cli..")
            .and().haveNameNotMatching("org\\.traindeck\\.engine\\.api\\.Engine(\\$.*)?")
            .and().haveNameNotMatching("org\\.traindeck\\.engine\\.queue\\.QueueRunner")
            .and().haveNameNotMatching("org\\.traindeck\\.engine\\.sweep\\.SweepLaunch")
            .should().dependOnClassesThat().resideInAPackage("org.traindeck.engine.faults..")
            .because("fault injection is passed in at the few seams that need it (the guide), as narrow hooks");

    /** The training loop's faults travel in the run's state and are read only where each one happens. */
    @ArchTest
    static final ArchRule trainingFaultsAreReadWhereTheyHappen = noClasses()
            .that().resideOutsideOfPackage("org.traindeck.engine.faults..")
            .and().haveNameNotMatching("org\\.traindeck\\.engine\\.train\\.(TrainingFaults|RunFaults|TrainingState"
                    // the trainer puts them in the state, stops and stalls; the chain fails a tier's setup
                    + "|Trainer|TierChain"
                    // NaN steps, and a worker failing in the middle of a step or between two rounds
                    + "|SingleDeviceStep|AllReduceStep|DistributedStep|ParallelEpoch)(\\$.*)?")
            .should().dependOnClassesThat().haveFullyQualifiedName("org.traindeck.engine.train.TrainingFaults");
}
