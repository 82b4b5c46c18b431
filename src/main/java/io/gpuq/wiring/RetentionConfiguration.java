package io.gpuq.wiring;

import io.gpuq.storage.FinishedJobRows;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Retention of finished jobs (gpuq.retention.*): its rows; CompositionConfiguration runs its duty.
 */
@Configuration(proxyBeanMethods = false)
public class RetentionConfiguration {

  @Bean
  FinishedJobRows finishedJobRows(JdbcTemplate jdbc) {
    return new FinishedJobRows(jdbc, new io.gpuq.storage.UsageTable(jdbc.getDataSource()));
  }
}
