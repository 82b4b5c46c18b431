package io.gpuq.cgroup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class WorkerIdTest {

  @Test
  void readsBackItsDirectoryName() {
    WorkerId id = new WorkerId("j-0193.a_b", 12);

    assertThat(id.directoryName()).isEqualTo("j-0193.a_b@12");
    assertThat(WorkerId.ofDirectoryName(id.directoryName())).hasValue(id);
  }

  @Test
  void otherDirectoriesAreNoWorkers() {
    assertThat(WorkerId.ofDirectoryName("supervisor")).isEmpty();
    assertThat(WorkerId.ofDirectoryName("@1")).isEmpty();
    assertThat(WorkerId.ofDirectoryName("j@0")).isEmpty();
    assertThat(WorkerId.ofDirectoryName("j@x")).isEmpty();
    assertThat(WorkerId.ofDirectoryName("../x@1")).isEmpty();
  }

  @Test
  void refusesJobIdsThatCouldEscapeTheParent() {
    assertThatThrownBy(() -> new WorkerId("..", 1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new WorkerId("a/b", 1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new WorkerId("a@b", 1)).isInstanceOf(IllegalArgumentException.class);
  }
}
