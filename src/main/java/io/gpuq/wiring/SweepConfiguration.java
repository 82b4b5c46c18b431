package io.gpuq.wiring;

import io.gpuq.config.GpuqProperties;
import io.gpuq.fs.StorageGuard;
import io.gpuq.job.JobRequestValidator;
import io.gpuq.job.SubmitAdmission;
import io.gpuq.schedule.JobCommands;
import io.gpuq.security.TokenRegistry;
import io.gpuq.storage.SweepTable;
import io.gpuq.sweeprun.SweepService;
import java.security.SecureRandom;
import java.time.Clock;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/** Sweeps: their store and their service (CompositionConfiguration runs their completion). */
@Configuration(proxyBeanMethods = false)
public class SweepConfiguration {

  @Bean
  SweepTable sweepStore(JdbcTemplate jdbc, TransactionTemplate tx) {
    return new SweepTable(jdbc, tx);
  }

  @Bean
  SweepService sweepService(
      SweepTable sweeps,
      JobRequestValidator validator,
      SubmitAdmission admission,
      StorageGuard storage,
      JobCommands jobCommands,
      Clock clock,
      GpuqProperties properties,
      TokenRegistry tokens) {
    SecureRandom random = new SecureRandom();
    return new SweepService(
            sweeps,
            validator,
            admission,
            storage,
            jobCommands,
            random::nextLong,
            clock,
            properties.sweeps().maxUnfinishedPerOwner())
        .withMaxQueued(CoreConfiguration.maxQueuedOf(tokens));
  }
}
