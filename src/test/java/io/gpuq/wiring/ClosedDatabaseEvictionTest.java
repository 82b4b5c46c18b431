package io.gpuq.wiring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.SQLExceptionOverride;
import io.gpuq.support.IntegrationTier;
import io.gpuq.support.Tmpfs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;

@IntegrationTier
@DisplayName("H2 closed by a full disk opens again through the pool once there is space")
class ClosedDatabaseEvictionTest {

  private static final int POOL = 3;

  @Test
  @EnabledIf(
      value = "io.gpuq.support.Tmpfs#canMount",
      disabledReason = "mounting a tmpfs needs root (CI runs as root)")
  void the_pool_drops_connections_to_a_closed_database_and_the_next_one_reopens_it()
      throws Exception {
    try (Tmpfs disk = Tmpfs.mount("h2-full", 8);
        HikariDataSource pool = pool(disk.root())) {
      execute(pool, "create table t(id serial primary key, v varchar(1000))");
      execute(pool, "insert into t(v) values ('before')");
      Path fill = disk.root().resolve("fill");
      Tmpfs.fill(fill);

      // The first failed write makes H2 close its database; the connections it had are dead.
      assertThatThrownBy(
              () -> {
                for (int i = 0; i < 1000; i++) {
                  execute(pool, "insert into t(v) values (repeat('x', 900))");
                }
              })
          .isInstanceOf(SQLException.class);
      assertThatThrownBy(() -> execute(pool, "insert into t(v) values ('while full')"))
          .isInstanceOf(SQLException.class);

      Files.delete(fill);

      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(200))
          .ignoreExceptions()
          .untilAsserted(() -> execute(pool, "insert into t(v) values ('after')"));
      try (Connection c = pool.getConnection();
          Statement s = c.createStatement();
          ResultSet rows = s.executeQuery("select v from t where length(v) < 100 order by id")) {
        assertThat(rows.next()).isTrue();
        assertThat(rows.getString(1)).isEqualTo("before");
        assertThat(rows.next()).isTrue();
        assertThat(rows.getString(1)).isEqualTo("after");
        assertThat(rows.next()).isFalse();
      }
    }
  }

  @Test
  @EnabledIf(
      value = "io.gpuq.support.Tmpfs#canMount",
      disabledReason = "mounting a tmpfs needs root (CI runs as root)")
  void the_failed_write_drops_every_connection_so_that_reads_on_the_full_disk_go_on()
      throws Exception {
    try (Tmpfs disk = Tmpfs.mount("h2-full-reads", 8);
        HikariDataSource pool = pool(disk.root())) {
      execute(pool, "create table t(id serial primary key, v varchar(1000))");
      execute(pool, "insert into t(v) values ('before')");
      // Every connection of the pool open, and idle again.
      try (Connection a = pool.getConnection();
          Connection b = pool.getConnection();
          Connection c = pool.getConnection()) {
        assertThat(List.of(a, b, c)).hasSize(POOL);
      }
      Tmpfs.fill(disk.root().resolve("fill"));

      assertThatThrownBy(
              () -> {
                for (int i = 0; i < 1000; i++) {
                  execute(pool, "insert into t(v) values (repeat('x', 900))");
                }
              })
          .isInstanceOf(SQLException.class);

      // As an admin's requests found it (issue 34): the disk still full, each read the first try.
      for (int i = 0; i < 2 * POOL; i++) {
        assertThat(count(pool)).as("read " + i).isEqualTo(1);
      }
    }
  }

  @Test
  void only_a_closed_database_evicts_other_errors_are_left_to_hikari() {
    AtomicInteger dropped = new AtomicInteger();
    ClosedDatabaseEviction eviction = new ClosedDatabaseEviction(dropped::incrementAndGet);

    assertThat(eviction.adjudicate(new SQLException("closed", "90098", 90098)))
        .isEqualTo(SQLExceptionOverride.Override.MUST_EVICT);
    assertThat(
            eviction.adjudicate(
                new SQLException("wrapped", "50000", 50000, new SQLException("x", "90121", 90121))))
        .isEqualTo(SQLExceptionOverride.Override.MUST_EVICT);
    assertThat(eviction.adjudicate(new SQLException("syntax", "42001", 42001)))
        .isEqualTo(SQLExceptionOverride.Override.CONTINUE_EVICT);
    assertThat(dropped).as("all connections dropped, at each closed database").hasValue(2);
  }

  /** As application.yml and DatabasePoolConfiguration configure gpuq's own pool. */
  private static HikariDataSource pool(Path dir) {
    HikariDataSource pool = new HikariDataSource();
    pool.setJdbcUrl(
        "jdbc:h2:file:" + dir.resolve("db/gpuq") + ";MODE=PostgreSQL;WRITE_DELAY=0;PAGE_SIZE=4096");
    pool.setUsername("sa");
    pool.setPassword("");
    pool.setMaximumPoolSize(POOL);
    ClosedDatabaseEviction.install(pool);
    return pool;
  }

  private static int count(HikariDataSource pool) throws SQLException {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rows = s.executeQuery("select count(*) from t where v = 'before'")) {
      rows.next();
      return rows.getInt(1);
    }
  }

  private static void execute(HikariDataSource pool, String sql) throws SQLException {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
