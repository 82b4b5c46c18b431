package io.gpuq.cgroup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** The affinity fallback, for real: any Linux user may bind its own children. */
@EnabledOnOs(OS.LINUX)
class AffinityTest {

  @Test
  void readsThisProcesssMaskAsTheKernelShowsIt() throws IOException {
    CpuList own = Affinity.ofThisProcess();

    assertThat(own.isEmpty()).isFalse();
    assertThat(own)
        .isEqualTo(
            CpuList.parse(
                GroupedProcesses.status(ProcessHandle.current().pid(), "Cpus_allowed_list")));
  }

  @Test
  void bindsARunningProcess() throws Exception {
    CpuList last = lastCpu();
    Process sleeper = new ProcessBuilder("sleep", "60").start();
    try {
      Affinity.bindProcess(Path.of("/proc"), sleeper.pid(), last);

      assertThat(GroupedProcesses.status(sleeper.pid(), "Cpus_allowed_list"))
          .isEqualTo(last.toString());
    } finally {
      sleeper.destroyForcibly();
      sleeper.waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aChildSpawnedBoundIsBornWithTheMaskAndTheSpawnersIsRestored() throws Exception {
    CpuList before = Affinity.ofThread(0);
    CpuList last = lastCpu();

    Process child = Affinity.spawnBound(last, () -> new ProcessBuilder("sleep", "60").start());
    try {
      assertThat(GroupedProcesses.status(child.pid(), "Cpus_allowed_list"))
          .isEqualTo(last.toString());
      assertThat(Affinity.ofThread(0)).isEqualTo(before);
    } finally {
      child.destroyForcibly();
      child.waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void saysWhyItCannotBind() {
    assertThatThrownBy(() -> Affinity.bindThread(Integer.MAX_VALUE, CpuList.of(0)))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("errno 3");
  }

  private static CpuList lastCpu() {
    CpuList own = Affinity.ofThisProcess();
    return CpuList.of(own.cpus().length() - 1);
  }
}
