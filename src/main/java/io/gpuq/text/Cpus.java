package io.gpuq.text;

import java.math.BigDecimal;
import java.util.Optional;

/**
 * Cores as a job asks for them ({@code resources.cpus}): a whole number, or a fraction such as
 * {@code 0.25}, counted exactly in thousandths of a core (millicores, as Kubernetes counts them),
 * so that adding and taking away fractions never drifts as binary floating point would.
 *
 * <p>The smallest request is {@link #SMALLEST} (0.01): the CPU bandwidth that holds a fraction to
 * its share is a quota per period, and the kernel refuses a quota under 1 ms, which is 0.01 of its
 * default 100 ms period. Whole-core requests keep their exclusive cores; a fraction shares a pool
 * of cores with the other fractions (docs/operations.md).
 *
 * @param millis thousandths of a core, 0 or more (0 only as a total: no job asks for none)
 */
public record Cpus(long millis) implements Comparable<Cpus> {

  /** Thousandths per core: the granularity of a request. */
  public static final int MILLIS_PER_CORE = 1000;

  public static final Cpus ZERO = new Cpus(0);
  public static final Cpus ONE = new Cpus(MILLIS_PER_CORE);

  /** The smallest request: 0.01 core, the kernel's smallest quota (1 ms of a 100 ms period). */
  public static final Cpus SMALLEST = new Cpus(10);

  /** Decimals a request may carry: thousandths. */
  public static final int MAX_DECIMALS = 3;

  public Cpus {
    if (millis < 0) {
      throw new IllegalArgumentException("cores must not be negative: " + millis + " millicores");
    }
  }

  /** {@code cores} whole cores. */
  public static Cpus of(long cores) {
    return new Cpus(Math.multiplyExact(cores, MILLIS_PER_CORE));
  }

  public static Cpus ofMillis(long millis) {
    return new Cpus(millis);
  }

  /**
   * The cores a number stands for, exactly; empty when it is not a multiple of a thousandth (more
   * than {@link #MAX_DECIMALS} decimals, trailing zeros aside), negative, or too large to count.
   */
  public static Optional<Cpus> exactly(BigDecimal cores) {
    try {
      BigDecimal millis = cores.movePointRight(MAX_DECIMALS).stripTrailingZeros();
      if (millis.signum() < 0 || millis.scale() > 0) {
        return Optional.empty();
      }
      return Optional.of(new Cpus(millis.longValueExact()));
    } catch (ArithmeticException tooLarge) {
      return Optional.empty();
    }
  }

  /** Whether this is a whole number of cores: such a job gets cores of its own. */
  public boolean isWhole() {
    return millis % MILLIS_PER_CORE == 0;
  }

  /** The nearest whole number of cores: 0.3 is none, 0.98 and 1.2 are one. */
  public Cpus wholeCoresNearest() {
    return new Cpus((millis + MILLIS_PER_CORE / 2) / MILLIS_PER_CORE * MILLIS_PER_CORE);
  }

  /** The whole cores it covers, rounded up: a job's thread counts, the cores a pool needs. */
  public long wholeCoresUp() {
    return (millis + MILLIS_PER_CORE - 1) / MILLIS_PER_CORE;
  }

  public Cpus plus(Cpus other) {
    return new Cpus(Math.addExact(millis, other.millis));
  }

  /** What is left after {@code other} is taken away; never below none. */
  public Cpus less(Cpus other) {
    return new Cpus(Math.max(0, millis - other.millis));
  }

  /** The cores as a JSON number: {@code 1} for one core, {@code 0.25} for a quarter. */
  public Number number() {
    if (isWhole()) {
      return millis / MILLIS_PER_CORE;
    }
    return BigDecimal.valueOf(millis, MAX_DECIMALS).stripTrailingZeros();
  }

  /** The cores as a double, for shares and gauges. */
  public double cores() {
    return (double) millis / MILLIS_PER_CORE;
  }

  /** For a person: {@code 1 core}, {@code 0.25 core}, {@code 2 cores}, {@code 1.5 cores}. */
  public String text() {
    return this + (millis <= MILLIS_PER_CORE ? " core" : " cores");
  }

  @Override
  public int compareTo(Cpus other) {
    return Long.compare(millis, other.millis);
  }

  /** The number alone, as a person writes it: {@code 1}, {@code 0.25}. */
  @Override
  public String toString() {
    return isWhole()
        ? Long.toString(millis / MILLIS_PER_CORE)
        : BigDecimal.valueOf(millis, MAX_DECIMALS).stripTrailingZeros().toPlainString();
  }
}
