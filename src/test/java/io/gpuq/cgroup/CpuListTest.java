package io.gpuq.cgroup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class CpuListTest {

  @Test
  void readsAndWritesTheKernelsListFormat() {
    CpuList cpus = CpuList.parse("0-3,8,10-11\n");

    assertThat(cpus.count()).isEqualTo(7);
    assertThat(cpus.toString()).isEqualTo("0-3,8,10-11");
    assertThat(CpuList.of(5, 1, 2, 3)).hasToString("1-3,5");
    assertThat(CpuList.parse("")).matches(CpuList::isEmpty);
  }

  @Test
  void takesTheLowestCpus() {
    assertThat(CpuList.parse("2,4-9").first(3)).hasToString("2,4-5");
  }

  @Test
  void refusesWhatIsNotAList() {
    assertThatThrownBy(() -> CpuList.parse("a-b")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> CpuList.parse("3-1")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> CpuList.parse("99999")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void isAValue() {
    assertThat(CpuList.parse("0-1")).isEqualTo(CpuList.of(0, 1));
  }
}
