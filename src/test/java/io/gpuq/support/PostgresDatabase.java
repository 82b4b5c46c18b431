package io.gpuq.support;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.springframework.test.context.DynamicPropertyRegistry;

/** One empty PostgreSQL database of its own, made by {@link PostgresSupport#freshDatabase()}. */
public record PostgresDatabase(String name, String jdbcUrl, String username, String password) {

  /** Points a Spring context's datasource at this database (Flyway then migrates it). */
  public void applyTo(DynamicPropertyRegistry registry) {
    registry.add("spring.datasource.url", this::jdbcUrl);
    registry.add("spring.datasource.username", this::username);
    registry.add("spring.datasource.password", this::password);
  }

  public Connection connect() throws SQLException {
    return DriverManager.getConnection(jdbcUrl, username, password);
  }

  @Override
  public String toString() {
    return "PostgresDatabase[" + jdbcUrl + " as " + username + "]";
  }
}
