package io.gpuq.wiring;

import io.gpuq.config.GpuqProperties;
import io.gpuq.duty.PeriodicDuty;
import io.gpuq.job.JobRequestValidator;
import io.gpuq.job.SubmitAdmission;
import io.gpuq.storage.JdbcSweepStore;
import io.gpuq.sweeps.SweepCompletionDuty;
import io.gpuq.sweeps.SweepService;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/** Sweeps: their store, their service, and the duty that stamps a done sweep's end. */
@Configuration(proxyBeanMethods = false)
public class SweepConfiguration {

  /** Often enough that a done sweep shows its end (and starts ageing) within seconds. */
  private static final Duration COMPLETION_INTERVAL = Duration.ofSeconds(5);

  @Bean
  JdbcSweepStore sweepStore(JdbcTemplate jdbc, TransactionTemplate tx) {
    return new JdbcSweepStore(jdbc, tx);
  }

  @Bean
  SweepService sweepService(
      JdbcSweepStore sweeps,
      JobRequestValidator validator,
      SubmitAdmission admission,
      Clock clock,
      GpuqProperties properties) {
    SecureRandom random = new SecureRandom();
    return new SweepService(
        sweeps,
        validator,
        admission,
        random::nextLong,
        clock,
        properties.sweeps().maxUnfinishedPerOwner());
  }

  @Bean
  PeriodicDuty sweepCompletionDuty(JdbcSweepStore sweeps, Clock clock) {
    return new SweepCompletionDuty(sweeps, clock, COMPLETION_INTERVAL);
  }
}
