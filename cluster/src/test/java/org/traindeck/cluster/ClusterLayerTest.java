package org.traindeck.cluster;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** The Spark backend is a client of the engine: its API and the backend interface, nothing of how it trains. */
@AnalyzeClasses(packages = "org.traindeck.cluster", importOptions = ImportOption.DoNotIncludeTests.class)
class ClusterLayerTest {

    @ArchTest
    static final ArchRule clusterUsesOnlyTheApiAndTheBackendInterface = noClasses()
            .that()
            .resideInAPackage("org.traindeck.cluster..")
            .should()
            .dependOnClassesThat(resideInAPackage("org.traindeck.engine..")
                    .and(not(resideInAnyPackage("org.traindeck.engine.api..", "org.traindeck.engine.parallel"))))
            .because("the engine's insides may change without the cluster module (engine.parallel.ShardReplica is "
                    + "what an executor needs)");
}
