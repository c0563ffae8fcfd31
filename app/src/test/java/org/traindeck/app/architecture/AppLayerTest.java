package org.traindeck.app.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The app's layers: it reaches the engine only through {@code engine.api} (the services and the values they hand
 * out), the events and the config records, so training internals and ND4J stay out of the UI; and its own packages
 * depend one way.
 */
@AnalyzeClasses(packages = "org.traindeck", importOptions = ImportOption.DoNotIncludeTests.class)
class AppLayerTest {

    /** What the app may use of the engine; a value the app needs is made for it in an {@code engine.api} package. */
    static final String[] ENGINE_API = {
        "org.traindeck.engine.api..", "org.traindeck.engine.events..", "org.traindeck.engine.config.."
    };

    private static final DescribedPredicate<JavaClass> ENGINE_INTERNALS = resideInAPackage("org.traindeck.engine..")
            .and(not(resideInAnyPackage(ENGINE_API)))
            .as("reside in the engine outside engine.api, engine.events and engine.config");

    @ArchTest
    static final ArchRule appUsesOnlyTheEngineApi = noClasses()
            .that()
            .resideInAPackage("org.traindeck.app..")
            .should()
            .dependOnClassesThat(ENGINE_INTERNALS)
            .because("the engine's insides may change without the app; move a type the app needs to engine.api");

    @ArchTest
    static final ArchRule appNeverTouchesNd4j = noClasses()
            .that()
            .resideInAPackage("org.traindeck.app..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("org.nd4j..", "org.deeplearning4j..", "org.bytedeco..");

    @ArchTest
    static final ArchRule appPackagesHaveNoCycles =
            slices().matching("org.traindeck.app.(**)").should().beFreeOfCycles();

    @ArchTest
    static final ArchRule engineAndAppDependOneWay =
            slices().matching("org.traindeck.(*)..").should().beFreeOfCycles();
}
