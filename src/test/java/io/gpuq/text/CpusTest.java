package io.gpuq.text;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

class CpusTest {

  @Test
  void a_number_of_cores_is_counted_exactly_in_thousandths() {
    assertThat(Cpus.exactly(new BigDecimal("0.25"))).contains(Cpus.ofMillis(250));
    assertThat(Cpus.exactly(new BigDecimal("1"))).contains(Cpus.ONE);
    assertThat(Cpus.exactly(new BigDecimal("2.500"))).contains(Cpus.ofMillis(2500));
    assertThat(Cpus.exactly(new BigDecimal("1E+1"))).contains(Cpus.of(10));
    assertThat(Cpus.exactly(new BigDecimal("0.0125"))).isEmpty();
    assertThat(Cpus.exactly(new BigDecimal("-0.5"))).isEmpty();
    assertThat(Cpus.exactly(new BigDecimal("1E+30"))).isEmpty();
  }

  @Test
  void ten_tenths_add_up_to_one_core_exactly() {
    Cpus sum = Cpus.ZERO;
    for (int i = 0; i < 10; i++) {
      sum = sum.plus(Cpus.ofMillis(100));
    }
    assertThat(sum).isEqualTo(Cpus.ONE);
    assertThat(Cpus.ONE.less(Cpus.ofMillis(250)).less(Cpus.ofMillis(1000))).isEqualTo(Cpus.ZERO);
  }

  @Test
  void a_fraction_covers_its_cores_rounded_up() {
    assertThat(Cpus.ofMillis(250).wholeCoresUp()).isEqualTo(1);
    assertThat(Cpus.ofMillis(1500).wholeCoresUp()).isEqualTo(2);
    assertThat(Cpus.of(3).wholeCoresUp()).isEqualTo(3);
    assertThat(Cpus.ofMillis(250).isWhole()).isFalse();
    assertThat(Cpus.of(2).isWhole()).isTrue();
  }

  @Test
  void shows_as_a_person_writes_it_and_as_a_json_number() {
    assertThat(Cpus.ONE.number()).isEqualTo(1L);
    assertThat(Cpus.of(1000).number()).isEqualTo(1000L);
    assertThat(Cpus.ofMillis(250).number()).isEqualTo(new BigDecimal("0.25"));
    assertThat(Cpus.ofMillis(250)).hasToString("0.25");
    assertThat(Cpus.ofMillis(1500).text()).isEqualTo("1.5 cores");
    assertThat(Cpus.ofMillis(500).text()).isEqualTo("0.5 core");
    assertThat(Cpus.ONE.text()).isEqualTo("1 core");
    assertThat(Cpus.of(4).text()).isEqualTo("4 cores");
  }
}
