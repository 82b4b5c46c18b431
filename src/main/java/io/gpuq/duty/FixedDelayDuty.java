package io.gpuq.duty;

import java.time.Duration;

/**
 * The base of gpuq's duties: a name and an interval, given once; a subclass only says what one run
 * does. {@link PeriodicDuties} runs it and survives its failures.
 */
public abstract class FixedDelayDuty implements PeriodicDuty {

  private final String name;
  private final Duration interval;

  protected FixedDelayDuty(String name, Duration interval) {
    this.name = name;
    this.interval = interval;
  }

  @Override
  public final String name() {
    return name;
  }

  @Override
  public final Duration interval() {
    return interval;
  }
}
