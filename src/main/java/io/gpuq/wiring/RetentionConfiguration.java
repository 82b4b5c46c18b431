package io.gpuq.wiring;

import io.gpuq.storage.RetentionTable;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Retention of finished jobs (gpuq.retention.*): its rows; CompositionConfiguration runs its duty.
 */
@Configuration(proxyBeanMethods = false)
public class RetentionConfiguration {

  @Bean
  RetentionTable retentionTable(JdbcTemplate jdbc) {
    return new RetentionTable(jdbc, new io.gpuq.storage.UsageTable(jdbc.getDataSource()));
  }
}
