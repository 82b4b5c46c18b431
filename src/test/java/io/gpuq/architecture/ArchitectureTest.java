package io.gpuq.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("gpuq's packages")
class ArchitectureTest {

  private static JavaClasses gpuq;

  @BeforeAll
  static void importMainClasses() {
    gpuq =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(ArchitectureTest::writtenByHand)
            .importPackages("io.gpuq");
  }

  /**
   * Not the classes Spring's ahead-of-time step generates into {@code target/classes} at build time
   * ({@code Job__Accessor_...}, {@code GpuqApplication__BeanDefinitions}, ...): they sit in gpuq's
   * packages but are Spring's code, written for those packages, not gpuq's.
   */
  private static boolean writtenByHand(com.tngtech.archunit.core.importer.Location location) {
    return !location.contains("__");
  }

  @Test
  @DisplayName("have no cycles")
  void haveNoCycles() {
    Layering.noPackageCycles("io.gpuq").check(gpuq);
  }

  @Test
  @DisplayName("use only their own layer and those below it")
  void useOnlyTheLayersBelow() {
    Layering.layers("io.gpuq").check(gpuq);
  }

  @Test
  @DisplayName("keep Spring, JPA and HTTP out of the core")
  void keepFrameworksOutOfTheCore() {
    Layering.coreIsFrameworkFree("io.gpuq").check(gpuq);
  }

  @Test
  @DisplayName("keep every Spring @Configuration in the wiring package")
  void keepConfigurationInWiring() {
    Layering.springConfigurationOnlyInWiring("io.gpuq").check(gpuq);
  }

  @Test
  @DisplayName(
      "give the web layer one door to submitting and cancelling: JobCommands, not JobService")
  void oneDoorFromTheWebLayer() {
    noClasses()
        .that()
        .resideInAPackage("io.gpuq.api..")
        .should()
        .dependOnClassesThat()
        .haveFullyQualifiedName("io.gpuq.job.JobService")
        .because("the web layer reads through job.JobQueries and writes through JobCommands")
        .check(gpuq);
  }
}
