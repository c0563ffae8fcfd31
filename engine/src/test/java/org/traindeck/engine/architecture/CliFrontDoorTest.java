package org.traindeck.engine.architecture;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The command line's train and resume go through {@code engine.api}, as the app's do: the same run handle, the same
 * checks, one front door. (The queue and sweep commands still drive the queue runner; see issue 24.)
 */
@AnalyzeClasses(packages = "org.traindeck.engine", importOptions = ImportOption.DoNotIncludeTests.class)
class CliFrontDoorTest {

    @ArchTest
    static final ArchRule trainAndResumeGoThroughTheApi = noClasses()
            .that().haveFullyQualifiedName("org.traindeck.engine.cli.Main")
            .or().haveFullyQualifiedName("org.traindeck.engine.cli.Commands")
            .should().dependOnClassesThat().haveFullyQualifiedName("org.traindeck.engine.train.TrainingRun")
            .orShould().dependOnClassesThat().haveFullyQualifiedName("org.traindeck.engine.events.EventBus")
            .orShould().dependOnClassesThat().haveFullyQualifiedName("org.traindeck.engine.sinks.RunLock")
            .orShould().dependOnClassesThat().haveFullyQualifiedName("org.traindeck.engine.sinks.RunLock$BusyException");
}
