package io.gpuq.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuq.storage.H2OnlineCopy;
import io.gpuq.support.IntegrationTier;
import io.gpuq.support.SettableClock;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** On a real H2 file database, opened as gpuq opens its own. */
@IntegrationTier
@DisplayName("Backups of the embedded database")
class DatabaseBackupsTest {

  @TempDir Path data;

  private JdbcDataSource database;
  private Path backups;
  private final SettableClock clock = new SettableClock(Instant.parse("2026-12-02T20:15:00Z"));

  @BeforeEach
  void aDatabaseWithJobs() throws SQLException {
    database = new JdbcDataSource();
    database.setURL(url(data.resolve("db")));
    database.setUser("sa");
    backups = data.resolve("backups");
    try (Connection c = database.getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE jobs (id VARCHAR(40) PRIMARY KEY, state VARCHAR(20))");
    }
    insertJobs("job-1", "job-2", "job-3");
  }

  @Test
  void aBackupIsAGzippedDatabaseFileThatOpensWithEveryJobInIt() throws Exception {
    Path backup = new DatabaseBackups(new H2OnlineCopy(database), backups, 4, clock).backUp();

    assertThat(backup.getFileName().toString()).isEqualTo("gpuq-20261202T201500Z.mv.db.gz");
    assertThat(jobsIn(restored(backup))).containsExactly("job-1", "job-2", "job-3");
  }

  @Test
  void aBackupHoldsWhatWasCommittedBeforeItAndNothingAfter() throws Exception {
    DatabaseBackups backups =
        new DatabaseBackups(new H2OnlineCopy(database), this.backups, 4, clock);
    Path first = backups.backUp();
    insertJobs("job-4");
    clock.advance(Duration.ofMinutes(15));
    Path second = backups.backUp();

    assertThat(jobsIn(restored(first))).containsExactly("job-1", "job-2", "job-3");
    assertThat(jobsIn(restored(second))).containsExactly("job-1", "job-2", "job-3", "job-4");
    assertThat(backups.backups()).as("newest first").containsExactly(second, first);
  }

  @Test
  void onlyTheNewestAreKeptAndNoPartialFileIsLeft() throws Exception {
    DatabaseBackups backups =
        new DatabaseBackups(new H2OnlineCopy(database), this.backups, 3, clock);
    List<Path> made = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      made.add(backups.backUp());
      clock.advance(Duration.ofMinutes(15));
    }

    assertThat(backups.backups()).containsExactly(made.get(4), made.get(3), made.get(2));
    try (var files = Files.list(this.backups)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .allMatch(name -> name.startsWith("gpuq-") && name.endsWith(".mv.db.gz"));
    }
    assertThat(DatabaseBackups.latest(this.backups)).contains(made.get(4));
  }

  @Test
  void aPartialFileLeftByACrashedBackupIsClearedByTheNext() throws Exception {
    Files.createDirectories(backups);
    Path leftover = Files.writeString(backups.resolve(".partial-20261202T200000Z.mv.db.gz"), "x");

    Path backup = new DatabaseBackups(new H2OnlineCopy(database), backups, 4, clock).backUp();

    assertThat(leftover).doesNotExist();
    assertThat(DatabaseBackups.latest(backups)).contains(backup);
  }

  @Test
  void keepsAtLeastOne() {
    assertThatThrownBy(() -> new DatabaseBackups(new H2OnlineCopy(database), backups, 0, clock))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private void insertJobs(String... ids) throws SQLException {
    try (Connection c = database.getConnection();
        Statement s = c.createStatement()) {
      for (String id : ids) {
        s.execute("INSERT INTO jobs VALUES ('" + id + "', 'QUEUED')");
      }
    }
  }

  /** The backup gunzipped as docs/backup.md does it, into a database directory of its own. */
  private Path restored(Path backup) throws IOException {
    Path dir = Files.createTempDirectory(data, "restored-");
    try (InputStream in = new GZIPInputStream(Files.newInputStream(backup))) {
      Files.copy(in, dir.resolve("gpuq.mv.db"));
    }
    return dir;
  }

  private static List<String> jobsIn(Path databaseDir) throws SQLException {
    List<String> ids = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(url(databaseDir) + ";IFEXISTS=TRUE", "sa", "");
        Statement s = c.createStatement();
        ResultSet rows = s.executeQuery("SELECT id FROM jobs ORDER BY id")) {
      while (rows.next()) {
        ids.add(rows.getString(1));
      }
    }
    return ids;
  }

  /** As application.yml opens gpuq's own database. */
  private static String url(Path databaseDir) {
    return "jdbc:h2:file:"
        + databaseDir.resolve("gpuq")
        + ";MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;WRITE_DELAY=0;PAGE_SIZE=4096";
  }
}
