package io.gpuq.cgroup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalInt;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("gpuq.worker.max-processes, as the kernel allows it")
class ProcessLimitTest {

  @TempDir Path dir;

  @Test
  void the_configured_limit_holds_below_pid_max() {
    ProcessLimit limit = ProcessLimit.decide(4096, OptionalInt.of(32768));

    assertThat(limit.perWorker()).isEqualTo(4096);
    assertThat(limit.lowered()).isEmpty();
  }

  @Test
  void a_limit_above_pid_max_is_lowered_to_it_and_says_why() {
    ProcessLimit limit = ProcessLimit.decide(100_000, OptionalInt.of(32768));

    assertThat(limit.perWorker()).isEqualTo(32768);
    assertThat(limit.lowered()).hasValueSatisfying(why -> assertThat(why).contains("pid_max"));
  }

  @Test
  void without_pid_max_the_configured_limit_holds() {
    assertThat(ProcessLimit.decide(5000, OptionalInt.empty()).perWorker()).isEqualTo(5000);
  }

  @Test
  void fewer_than_eight_could_not_run_a_worker() {
    assertThatThrownBy(() -> ProcessLimit.decide(7, OptionalInt.of(32768)))
        .hasMessageContaining("gpuq.worker.max-processes=7");
  }

  @Test
  void pid_max_is_read_from_proc() throws Exception {
    Files.createDirectories(dir.resolve("proc/sys/kernel"));
    Files.writeString(dir.resolve("proc/sys/kernel/pid_max"), "32768\n");

    assertThat(ProcessLimit.pidMax(new HostPaths(dir.resolve("proc"), dir.resolve("cgroup"))))
        .hasValue(32768);
    assertThat(ProcessLimit.pidMax(new HostPaths(dir.resolve("none"), dir))).isEmpty();
  }
}
