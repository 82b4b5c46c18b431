package io.gpuq.wiring;

import io.gpuq.backup.BackupDuty;
import io.gpuq.backup.DatabaseBackups;
import io.gpuq.config.GpuqProperties;
import io.gpuq.fs.DataDirectory;
import io.gpuq.fs.StorageGuard;
import io.gpuq.storage.H2OnlineCopy;
import java.time.Clock;
import java.time.Duration;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/** The embedded database's periodic backup (gpuq.backup.*, docs/backup.md). */
@Configuration(proxyBeanMethods = false)
public class BackupConfiguration {

  private static final Logger log = LoggerFactory.getLogger(BackupConfiguration.class);

  /**
   * Off (interval zero) for PostgreSQL, decided here from the URL rather than by a condition: the
   * bean graph is fixed at build time (AOT), the database at start.
   */
  @Bean
  BackupDuty databaseBackupDuty(
      DataSource dataSource,
      GpuqProperties properties,
      StorageGuard storage,
      Clock clock,
      Environment environment) {
    GpuqProperties.Backup backup = properties.backup();
    DatabaseBackups backups =
        new DatabaseBackups(
            new H2OnlineCopy(dataSource),
            new DataDirectory(properties.dataDir()).backups(),
            backup.keep(),
            clock);
    Duration interval = backup.interval();
    if (!embeddedH2(environment)) {
      log.info("database backups: not by gpuq on PostgreSQL; back it up with its own tools");
      interval = Duration.ZERO;
    } else if (interval.isZero()) {
      log.warn("database backups: off (gpuq.backup.interval=0)");
    } else {
      log.info(
          "database backups: every {} into {}, the newest {} kept",
          interval,
          backups.directory(),
          backup.keep());
    }
    return new BackupDuty(backups, storage, interval, clock);
  }

  static boolean embeddedH2(Environment environment) {
    return environment.getProperty("spring.datasource.url", "").startsWith("jdbc:h2:file:");
  }
}
