package io.gpuq.job;

import static io.gpuq.job.JobSpecs.aSpec;
import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.job.Caller.Role;
import io.gpuq.storage.JpaJobStore;
import io.gpuq.support.IntegrationTier;
import jakarta.persistence.EntityManagerFactory;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.hibernate.SessionFactory;
import org.hibernate.stat.Statistics;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.data.jpa.test.autoconfigure.DataJpaTest;
import org.springframework.boot.jdbc.test.autoconfigure.AutoConfigureTestDatabase;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/**
 * A page of the job list reads its page and nothing more, however many jobs match: counted with
 * Hibernate's statistics (rows, collections) and the statements prepared on the database's
 * connections (Hibernate's and the tables' {@code JdbcClient}'s alike), not timed. Run on each
 * database.
 */
@IntegrationTier
@DataJpaTest(
    showSql = false,
    properties = "spring.jpa.properties.hibernate.generate_statistics=true")
@AutoConfigureTestDatabase(replace = AutoConfigureTestDatabase.Replace.NONE)
@Transactional(propagation = Propagation.NOT_SUPPORTED)
@Import({JpaJobStore.class, JobPageContract.Fixtures.class})
abstract class JobPageContract {

  static final Instant T0 = Instant.parse("2026-11-29T12:00:00Z");
  static final Caller ALICE = new Caller("alice", Role.SUBMITTER);
  static final Caller ADMIN = new Caller("root", Role.ADMIN);

  /** Many more than a page, in every state a filter may ask for. */
  static final int JOBS = 150;

  static final int PAGE = 10;

  @Autowired JobService service;
  @Autowired JdbcTemplate jdbc;
  @Autowired EntityManagerFactory entityManagerFactory;

  /** The statements prepared on any connection of the data source since the last clear. */
  static final AtomicLong STATEMENTS = new AtomicLong();

  @TestConfiguration(proxyBeanMethods = false)
  static class Fixtures {

    /** The data source as one whose connections count the statements prepared on them. */
    @Bean
    static BeanPostProcessor countingStatements() {
      return new BeanPostProcessor() {
        @Override
        public Object postProcessAfterInitialization(Object bean, String name) {
          return bean instanceof DataSource dataSource ? counting(dataSource) : bean;
        }
      };
    }

    private static DataSource counting(DataSource dataSource) {
      return new DelegatingDataSource(dataSource) {
        @Override
        public Connection getConnection() throws SQLException {
          return counting(super.getConnection());
        }

        @Override
        public Connection getConnection(String user, String password) throws SQLException {
          return counting(super.getConnection(user, password));
        }
      };
    }

    private static Connection counting(Connection connection) {
      return (Connection)
          Proxy.newProxyInstance(
              Connection.class.getClassLoader(),
              new Class<?>[] {Connection.class},
              (proxy, method, args) -> {
                if (method.getName().equals("prepareStatement")
                    || method.getName().equals("prepareCall")
                    || method.getName().equals("createStatement")) {
                  STATEMENTS.incrementAndGet();
                }
                try {
                  return method.invoke(connection, args);
                } catch (InvocationTargetException e) {
                  throw e.getCause();
                }
              });
    }

    @Bean
    Clock clock() {
      return Clock.fixed(T0, ZoneOffset.UTC);
    }

    /** The service as gpuq builds it, without listeners or a queued limit. */
    @Bean
    JobService jobService(JobStore store, Clock clock) {
      return new JobService(store, clock, List.of());
    }
  }

  @BeforeEach
  void manyRunningJobsOfOneOwnerWithLabelsAndAttempts() {
    jdbc.update("delete from jobs");
    List<String> ids =
        IntStream.range(0, JOBS)
            .mapToObj(
                i ->
                    service
                        .submit(ALICE, aSpec().labels(Map.of("team", "nlp")).build(), null)
                        .job()
                        .id())
            .toList();
    for (int i = 0; i < ids.size(); i += 50) {
      Map<String, JobPlacement> claims =
          ids.subList(i, Math.min(ids.size(), i + 50)).stream()
              .collect(
                  java.util.stream.Collectors.toMap(
                      id -> id, id -> JobPlacement.cpuOnly("node-1")));
      assertThat(service.markStarted(claims)).hasSize(claims.size());
    }
    clearCounts();
  }

  @Test
  void a_page_without_a_filter_reads_only_its_jobs_and_their_labels_and_attempts() {
    assertReadsOnlyOnePage(() -> service.list(ADMIN, null, Map.of(), null, PAGE));
  }

  @Test
  void a_page_of_a_state_reads_only_its_jobs_though_every_job_is_in_that_state() {
    assertReadsOnlyOnePage(() -> service.list(ADMIN, JobState.RUNNING, Map.of(), null, PAGE));
  }

  @Test
  void a_page_of_an_owners_jobs_in_a_state_with_a_label_reads_only_its_jobs() {
    assertReadsOnlyOnePage(
        () -> service.list(ALICE, JobState.RUNNING, Map.of("team", "nlp"), null, PAGE));
  }

  @Test
  void a_page_after_a_cursor_reads_only_its_jobs() {
    String cursor = service.list(ADMIN, null, Map.of(), null, PAGE).nextBeforeId();
    clearCounts();

    assertReadsOnlyOnePage(() -> service.list(ADMIN, JobState.RUNNING, Map.of(), cursor, PAGE));
  }

  @Test
  void a_page_longer_than_one_batch_has_every_job_newest_first_with_its_labels_and_attempts() {
    int longPage = JOBS - 1;
    assertThat(longPage).isGreaterThan(Job.ASSOCIATION_BATCH);

    JobPage page = service.list(ADMIN, null, Map.of(), null, longPage);

    assertThat(page.items()).hasSize(longPage);
    assertThat(page.items())
        .extracting(Job::id)
        .isSortedAccordingTo(java.util.Comparator.reverseOrder());
    assertThat(page.items())
        .allSatisfy(
            job -> {
              assertThat(job.labels()).containsExactly(Map.entry("team", "nlp"));
              assertThat(job.attempts()).hasSize(1);
            });
    assertThat(STATEMENTS.get())
        .as("statements: the page's ids, then its jobs, labels and attempts in two batches each")
        .isEqualTo(1 + 2 * 3);
  }

  @Test
  void a_job_read_by_id_comes_with_its_attempts_in_one_statement_and_its_labels_in_another() {
    String id = service.list(ADMIN, null, Map.of(), null, 1).items().get(0).id();
    clearCounts();

    Job job = service.get(ALICE, id);

    assertThat(job.labels()).containsExactly(Map.entry("team", "nlp"));
    assertThat(job.attempts()).hasSize(1);
    assertThat(STATEMENTS.get())
        .as("statements: the job with its attempts, its labels")
        .isEqualTo(2);
  }

  private void assertReadsOnlyOnePage(java.util.function.Supplier<JobPage> listing) {
    JobPage page = listing.get();

    assertThat(page.items()).hasSize(PAGE);
    assertThat(page.nextBeforeId()).isNotNull();
    Statistics stats = statistics();
    assertThat(stats.getEntityStatistics(Job.class.getName()).getLoadCount())
        .as("jobs loaded")
        .isEqualTo(PAGE);
    assertThat(stats.getEntityStatistics(JobAttempt.class.getName()).getLoadCount())
        .as("attempts loaded (one per running job)")
        .isEqualTo(PAGE);
    assertThat(stats.getCollectionStatistics(Job.class.getName() + ".labels").getLoadCount())
        .as("label maps loaded")
        .isEqualTo(PAGE);
    assertThat(STATEMENTS.get())
        .as("statements: the page's ids, its jobs, their labels, their attempts")
        .isEqualTo(4);
    // Every job carries its labels and attempt as read, not as a later lazy load would.
    assertThat(page.items())
        .allSatisfy(
            job -> {
              assertThat(job.labels()).containsEntry("team", "nlp");
              assertThat(job.attempts()).hasSize(1);
            });
  }

  private void clearCounts() {
    statistics().clear();
    STATEMENTS.set(0);
  }

  private Statistics statistics() {
    return entityManagerFactory.unwrap(SessionFactory.class).getStatistics();
  }
}
