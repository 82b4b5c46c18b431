package io.gpuq.cgroup;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("Whom the kernel's OOM killer takes first")
class OomScoreAdjTest {

  @TempDir Path dir;

  @Test
  void a_worker_without_memory_goes_first_one_with_a_cap_next_gpuq_last() {
    assertThat(OomScoreAdj.forWorker(false)).isEqualTo(1000);
    assertThat(OomScoreAdj.forWorker(true))
        .isLessThan(OomScoreAdj.forWorker(false))
        .isGreaterThan(0);
    assertThat(OomScoreAdj.GPUQ).isNegative().isGreaterThan(-1000);
  }

  @Test
  void gpuq_lowers_its_own_score() throws Exception {
    Path file = Files.writeString(dir.resolve("oom_score_adj"), "0\n");

    assertThat(OomScoreAdj.protect(file)).isEmpty();

    assertThat(Files.readString(file)).isEqualTo("-900");
  }

  @Test
  void a_refusal_is_said_not_thrown() {
    assertThat(OomScoreAdj.protect(dir.resolve("missing/oom_score_adj")))
        .hasValueSatisfying(why -> assertThat(why).contains("cannot write -900"));
  }

  @Test
  void a_score_is_read_from_proc_and_a_gone_process_has_none() {
    assertThat(OomScoreAdj.of(ProcessHandle.current().pid())).isPresent();
    assertThat(OomScoreAdj.of(Long.MAX_VALUE)).isEmpty();
  }
}
