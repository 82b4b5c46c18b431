package io.gpuq;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("gpuq uses the bean definitions generated ahead of time only from its jar")
class GpuqApplicationTest {

  @Test
  void a_class_loaded_from_a_jar_runs_from_a_jar() {
    assertThat(GpuqApplication.runsFromAJar(Test.class)).isTrue();
  }

  @Test
  void a_class_loaded_from_a_directory_of_classes_does_not() {
    // target/classes here: AOT classes found there may be left over from an older build.
    assertThat(GpuqApplication.runsFromAJar(GpuqApplication.class)).isFalse();
  }

  @Test
  void a_class_of_the_jdk_does_not() {
    assertThat(GpuqApplication.runsFromAJar(String.class)).isFalse();
  }
}
