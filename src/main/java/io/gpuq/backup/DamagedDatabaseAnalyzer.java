package io.gpuq.backup;

import io.gpuq.fs.DataDirectory;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Optional;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

/**
 * A start that fails because the embedded H2 database file is damaged says so in one block, what is
 * wrong and the exact commands that restore the newest backup, instead of a stack trace whose cause
 * is the sixth "Caused by". Spring Boot prints a failure analysis in place of the trace; first of
 * its analyzers, as others (the data source's, Flyway's) would claim the same failure less
 * usefully.
 */
public final class DamagedDatabaseAnalyzer implements FailureAnalyzer, Ordered {

  /** H2's FILE_CORRUPTED_1, as its JDBC driver reports a damaged file. */
  static final int FILE_CORRUPTED = 90030;

  /** The database file of the default {@code spring.datasource.url} (application.yml). */
  static final String DATABASE_FILE = "gpuq.mv.db";

  private final Environment environment;

  public DamagedDatabaseAnalyzer(Environment environment) {
    this.environment = environment;
  }

  @Override
  public int getOrder() {
    return Ordered.HIGHEST_PRECEDENCE;
  }

  @Override
  public FailureAnalysis analyze(Throwable failure) {
    Optional<Throwable> damage = damage(failure);
    if (damage.isEmpty()
        || !environment.getProperty("spring.datasource.url", "").startsWith("jdbc:h2:file:")) {
      return null;
    }
    DataDirectory data =
        new DataDirectory(Path.of(environment.getProperty("gpuq.data-dir", "./data")));
    Path file = data.database().resolve(DATABASE_FILE);
    return new FailureAnalysis(
        "gpuq's database "
            + file
            + " is damaged and cannot be opened: "
            + firstLine(damage.get().getMessage()),
        action(file, data.backups()),
        failure);
  }

  /** The restore, as docs/backup.md gives it, with this gpuq's paths. */
  static String action(Path file, Path backups) {
    Optional<Path> latest = DatabaseBackups.latest(backups);
    if (latest.isEmpty()) {
      return "There is no backup in "
          + backups
          + " (gpuq.backup.interval). Move the damaged file aside and start gpuq on an empty"
          + " database, or try H2's Recover tool on it (docs/backup.md):\n\n"
          + "    mv "
          + file
          + " "
          + file
          + ".damaged\n";
    }
    return "Stop gpuq if it still runs, keep the damaged file aside and restore the newest backup,"
        + " then start gpuq again (docs/backup.md). What was submitted after the backup was taken"
        + " is lost:\n\n"
        + "    mv "
        + file
        + " "
        + file
        + ".damaged\n"
        + "    gunzip -c "
        + latest.get()
        + " > "
        + file
        + "\n";
  }

  /** The first of {@code failure}'s causes that says the database file is damaged. */
  static Optional<Throwable> damage(Throwable failure) {
    Throwable t = failure;
    for (int depth = 0; t != null && depth < 64; depth++, t = t.getCause()) {
      if (t instanceof SQLException sql && sql.getErrorCode() == FILE_CORRUPTED) {
        return Optional.of(t);
      }
      String message = t.getMessage() == null ? "" : t.getMessage().toLowerCase(Locale.ROOT);
      // MVStore's own exception (H2 is not on the compile class path): "File corrupted in chunk
      // 398, expected map id 10, got 15", "Store header is corrupt", "Chunk 12 not found".
      if (t.getClass().getName().startsWith("org.h2.")
          && (message.contains("corrupt") || message.matches("(?s).*chunk \\S+ not found.*"))) {
        return Optional.of(t);
      }
    }
    return Optional.empty();
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "(no message)";
    }
    int end = message.indexOf('\n');
    return end < 0 ? message : message.substring(0, end);
  }
}
