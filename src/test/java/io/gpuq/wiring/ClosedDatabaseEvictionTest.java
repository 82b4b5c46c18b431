package io.gpuq.wiring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
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
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;

@IntegrationTier
@DisplayName("H2 closed by a full disk opens again through the pool once there is space")
class ClosedDatabaseEvictionTest {

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
  void only_a_closed_database_evicts_other_errors_are_left_to_hikari() {
    ClosedDatabaseEviction eviction = new ClosedDatabaseEviction();

    assertThat(eviction.adjudicate(new SQLException("closed", "90098", 90098)))
        .isEqualTo(SQLExceptionOverride.Override.MUST_EVICT);
    assertThat(
            eviction.adjudicate(
                new SQLException("wrapped", "50000", 50000, new SQLException("x", "90121", 90121))))
        .isEqualTo(SQLExceptionOverride.Override.MUST_EVICT);
    assertThat(eviction.adjudicate(new SQLException("syntax", "42001", 42001)))
        .isEqualTo(SQLExceptionOverride.Override.CONTINUE_EVICT);
  }

  /** As application.yml configures gpuq's own pool. */
  private static HikariDataSource pool(Path dir) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(
        "jdbc:h2:file:" + dir.resolve("db/gpuq") + ";MODE=PostgreSQL;WRITE_DELAY=0;PAGE_SIZE=4096");
    config.setUsername("sa");
    config.setPassword("");
    config.setMaximumPoolSize(3);
    config.setExceptionOverrideClassName(ClosedDatabaseEviction.class.getName());
    return new HikariDataSource(config);
  }

  private static void execute(HikariDataSource pool, String sql) throws SQLException {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
