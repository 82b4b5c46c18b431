package db.migration;

import java.sql.Statement;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

/**
 * Each owner's queued jobs as a number the database keeps, for {@code max-queued-jobs}: a
 * submission read it by counting the owner's queued jobs in an index, which at 100,000 queued cost
 * 30 ms a submission. The number is kept by triggers on {@code jobs}, in the transaction that
 * inserts, moves or deletes the job, so that no write path (JPA, the transitions' SQL, a sweep's
 * trials, retention, an older node sharing the database) can leave it wrong. A submission reads it
 * after locking the owner's {@code owner_usage} row, as it counted before; an increment locks the
 * owner's {@code owner_queued} row until its transaction ends, so the number read is the committed
 * one.
 *
 * <p>PostgreSQL counts an insert's or a delete's rows once per statement (a sweep's 10,000 trials
 * are one update of the owner's row) and a change of state per row, only when the state changed. H2
 * calls {@code io.gpuq.storage.QueuedJobsTrigger} for each row.
 *
 * <p>A Java migration because the two databases write triggers differently.
 */
public class V22__queued_jobs_per_owner extends BaseJavaMigration {

  @Override
  public void migrate(Context context) throws Exception {
    boolean postgres = Databases.isPostgres(context);
    try (Statement ddl = context.getConnection().createStatement()) {
      ddl.execute(
          "create table owner_queued (owner varchar(100) primary key, jobs bigint not null)");
      if (postgres) {
        // No job can be queued or leave the queue between the count and the triggers' creation.
        ddl.execute("lock table jobs in share row exclusive mode");
      }
      ddl.execute(
          "insert into owner_queued (owner, jobs) select owner, count(*) from jobs"
              + " where state = 'QUEUED' group by owner");
      if (postgres) {
        postgresTriggers(ddl);
      } else {
        for (String event : new String[] {"insert", "update", "delete"}) {
          ddl.execute(
              "create trigger jobs_queued_%s after %s on jobs for each row call"
                      .formatted(event, event)
                  + " \"io.gpuq.storage.QueuedJobsTrigger\"");
        }
      }
    }
  }

  private static void postgresTriggers(Statement ddl) throws java.sql.SQLException {
    // Added in owner order, so that two statements adding for the same owners lock their rows in
    // the same order.
    ddl.execute(
        "create function owner_queued_add() returns trigger language plpgsql as $$ begin"
            + " insert into owner_queued (owner, jobs) select owner, count(*) from added"
            + " where state = 'QUEUED' group by owner order by owner"
            + " on conflict (owner) do update set jobs = owner_queued.jobs + excluded.jobs;"
            + " return null; end $$");
    ddl.execute(
        "create function owner_queued_remove() returns trigger language plpgsql as $$ begin"
            + " update owner_queued q set jobs = q.jobs - g.jobs from (select owner, count(*) jobs"
            + " from removed where state = 'QUEUED' group by owner) g where q.owner = g.owner;"
            + " return null; end $$");
    ddl.execute(
        "create function owner_queued_move() returns trigger language plpgsql as $$ begin"
            + " if old.state = 'QUEUED' then"
            + " update owner_queued set jobs = jobs - 1 where owner = old.owner; end if;"
            + " if new.state = 'QUEUED' then insert into owner_queued (owner, jobs)"
            + " values (new.owner, 1) on conflict (owner) do update"
            + " set jobs = owner_queued.jobs + 1; end if;"
            + " return null; end $$");
    ddl.execute(
        "create trigger jobs_queued_insert after insert on jobs referencing new table as added"
            + " for each statement execute function owner_queued_add()");
    ddl.execute(
        "create trigger jobs_queued_delete after delete on jobs referencing old table as removed"
            + " for each statement execute function owner_queued_remove()");
    // A row trigger with a condition: an update that leaves the state as it was (metrics, a
    // process id) calls no function at all.
    ddl.execute(
        "create trigger jobs_queued_move after update of state on jobs for each row"
            + " when (old.state is distinct from new.state and (old.state = 'QUEUED'"
            + " or new.state = 'QUEUED')) execute function owner_queued_move()");
  }
}
