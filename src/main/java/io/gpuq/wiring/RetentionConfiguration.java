package io.gpuq.wiring;

import io.gpuq.config.GpuqProperties;
import io.gpuq.duty.PeriodicDuty;
import io.gpuq.fs.DataDirectory;
import io.gpuq.retention.JobDirectories;
import io.gpuq.retention.RetentionDuty;
import io.gpuq.storage.FinishedJobRows;
import java.time.Clock;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/** Retention of finished jobs (gpuq.retention.*): its rows, this node's directories, its duty. */
@Configuration(proxyBeanMethods = false)
public class RetentionConfiguration {

  @Bean
  FinishedJobRows finishedJobRows(JdbcTemplate jdbc, TransactionTemplate tx) {
    return new FinishedJobRows(jdbc, tx);
  }

  @Bean
  PeriodicDuty retentionDuty(FinishedJobRows rows, GpuqProperties properties, Clock clock) {
    GpuqProperties.Retention retention = properties.retention();
    return new RetentionDuty(
        rows,
        new JobDirectories(new DataDirectory(properties.dataDir())),
        retention.finished(),
        retention.interval(),
        clock);
  }
}
