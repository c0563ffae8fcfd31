package org.traindeck.app.architecture;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;

/**
 * No cycle among the app's packages, its root package included: a slice pattern such as {@code app.(**)} leaves the
 * classes directly in {@code org.traindeck.app} out, and a cycle through them (the run dashboard calling the layout
 * audit in the root package, which builds the window from the run package) went unseen.
 */
@AnalyzeClasses(packages = "org.traindeck.app", importOptions = ImportOption.DoNotIncludeTests.class)
class AppPackageCyclesTest {

    private static final SliceAssignment EACH_PACKAGE = new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass c) {
            return c.getPackageName().startsWith("org.traindeck.app")
                    ? SliceIdentifier.of(c.getPackageName())
                    : SliceIdentifier.ignore();
        }

        @Override
        public String getDescription() {
            return "each package of the app, its root included";
        }
    };

    @ArchTest
    static final ArchRule appPackagesIncludingTheRootHaveNoCycles =
            slices().assignedFrom(EACH_PACKAGE).should().beFreeOfCycles();
}
