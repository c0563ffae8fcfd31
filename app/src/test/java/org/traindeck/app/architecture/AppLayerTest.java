package org.traindeck.app.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The app's layers: it reaches the engine only through {@code engine.api} and the plain values that API hands out
 * (configs, events, results, device figures), so training internals and ND4J stay out of the UI; and its own
 * packages depend one way.
 */
@AnalyzeClasses(packages = "org.traindeck", importOptions = ImportOption.DoNotIncludeTests.class)
class AppLayerTest {

    /** Records and enums anywhere in the engine, the config and event families' interfaces, and constant holders. */
    private static final DescribedPredicate<JavaClass> VALUE_TYPE = DescribedPredicate.describe(
            "a value type",
            c -> c.isRecord()
                    || c.isEnum()
                    || c.isInterface()
                            && resideInAnyPackage("org.traindeck.engine.config..", "org.traindeck.engine.events..")
                                    .test(c)
                    || holdsOnlyConstants(c)
                    || namesEvents(c));

    private static final DescribedPredicate<JavaClass> ENGINE_INTERNALS = resideInAPackage("org.traindeck.engine..")
            .and(not(resideInAPackage("org.traindeck.engine.api..")))
            .and(not(VALUE_TYPE))
            .as("engine classes outside engine.api that are not value types");

    @ArchTest
    static final ArchRule appUsesOnlyTheEngineApi =
            noClasses().that().resideInAPackage("org.traindeck.app..").should().dependOnClassesThat(ENGINE_INTERNALS);

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

    private static boolean holdsOnlyConstants(JavaClass c) {
        return !c.getFields().isEmpty()
                && c.getFields().stream().allMatch(AppLayerTest::isConstant)
                && c.getMethods().isEmpty()
                && c.getConstructors().stream().allMatch(k -> k.getModifiers().contains(JavaModifier.PRIVATE));
    }

    /** A stateless helper of the event family (how a metric's name is built and read): part of the events' contract. */
    private static boolean namesEvents(JavaClass c) {
        return resideInAPackage("org.traindeck.engine.events..").test(c)
                && c.getFields().stream().allMatch(AppLayerTest::isConstant)
                && c.getMethods().stream().allMatch(m -> m.getModifiers().contains(JavaModifier.STATIC))
                && c.getConstructors().stream().allMatch(k -> k.getModifiers().contains(JavaModifier.PRIVATE));
    }

    private static boolean isConstant(JavaField f) {
        return f.getModifiers().contains(JavaModifier.STATIC)
                && f.getModifiers().contains(JavaModifier.FINAL);
    }
}
