package io.gpuq.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.EvaluationResult;
import io.gpuq.architecture.fixture.api.EdgeView;
import io.gpuq.architecture.fixture.gpu.ParentThatPicksItsChild;
import io.gpuq.architecture.fixture.gpu.nvml.ChildOfItsParent;
import io.gpuq.architecture.fixture.job.JobThatRunsSql;
import io.gpuq.architecture.fixture.placement.LeafThatReachesUp;
import io.gpuq.architecture.fixture.storage.FixtureRows;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The layering rules catch what they are there for, shown on a leaf that reaches up to an edge. */
@DisplayName("The layering rules")
class LayeringRulesTest {

  private static final String FIXTURE = "io.gpuq.architecture.fixture";

  private final JavaClasses fixture =
      new ClassFileImporter().importClasses(LeafThatReachesUp.class, EdgeView.class);

  private final JavaClasses storageFixture =
      new ClassFileImporter().importClasses(JobThatRunsSql.class, FixtureRows.class);

  @Test
  @DisplayName("report a cycle between two packages")
  void reportACycle() {
    EvaluationResult result = Layering.noPackageCycles(FIXTURE).evaluate(fixture);

    assertThat(result.hasViolation()).isTrue();
    assertThat(result.getFailureReport().toString()).contains("Cycle detected");
  }

  @Test
  @DisplayName("report a cycle between a package and its child")
  void reportAParentChildCycle() {
    JavaClasses parentAndChild =
        new ClassFileImporter()
            .importClasses(ParentThatPicksItsChild.class, ChildOfItsParent.class);

    EvaluationResult result = Layering.noPackageCycles(FIXTURE).evaluate(parentAndChild);

    assertThat(result.hasViolation()).isTrue();
    assertThat(result.getFailureReport().toString())
        .contains("Cycle detected")
        .contains(ChildOfItsParent.class.getName());
  }

  @Test
  @DisplayName("report a foundation package that uses an edge")
  void reportAnUpwardDependency() {
    EvaluationResult result = Layering.layers(FIXTURE).withOptionalLayers(true).evaluate(fixture);

    assertThat(result.hasViolation()).isTrue();
    assertThat(result.getFailureReport().toString())
        .contains(LeafThatReachesUp.class.getName())
        .contains(EdgeView.class.getName());
  }

  @Test
  @DisplayName("report a core class that imports Spring")
  void reportFrameworkInTheCore() {
    EvaluationResult result = Layering.coreIsFrameworkFree(FIXTURE).evaluate(fixture);

    assertThat(result.hasViolation()).isTrue();
    assertThat(result.getFailureReport().toString()).contains("org.springframework");
  }

  @Test
  @DisplayName("report a job class that runs SQL: the job package is core, package-wide")
  void reportSqlInTheJobPackage() {
    EvaluationResult result = Layering.coreIsFrameworkFree(FIXTURE).evaluate(storageFixture);

    assertThat(result.hasViolation()).isTrue();
    assertThat(result.getFailureReport().toString())
        .contains(JobThatRunsSql.class.getName())
        .contains("org.springframework.jdbc");
  }

  @Test
  @DisplayName("report a core package that uses the storage adapter")
  void reportTheCoreUsingStorage() {
    EvaluationResult result =
        Layering.layers(FIXTURE).withOptionalLayers(true).evaluate(storageFixture);

    assertThat(result.hasViolation()).isTrue();
    assertThat(result.getFailureReport().toString())
        .contains(JobThatRunsSql.class.getName())
        .contains(FixtureRows.class.getName());
  }
}
