package db.migration;

import io.gpuq.storage.QueuedJobsTrigger;
import java.sql.Statement;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

/**
 * On H2, {@code owner_queued} is added to once per statement and owner, no longer once per row
 * (issue 34: a sweep's 10,000 trials updated their owner's row 10,000 times in the transaction that
 * stored them). The row triggers of V22 now only count; a trigger before each statement forgets
 * what a failed one counted, and one after it adds what was counted ({@link QueuedJobsTrigger}).
 * PostgreSQL's triggers already add once per insert or delete statement: unchanged.
 */
public class V29__queued_jobs_counted_per_statement_on_h2 extends BaseJavaMigration {

  @Override
  public void migrate(Context context) throws Exception {
    boolean postgres = Databases.isPostgres(context);
    if (postgres) {
      return;
    }
    String trigger = "\"" + QueuedJobsTrigger.class.getName() + "\"";
    try (Statement ddl = context.getConnection().createStatement()) {
      for (String event : new String[] {"insert", "update", "delete"}) {
        String name = "jobs_queued_" + event;
        // Made again: H2 keeps each trigger's object, made when the trigger is.
        ddl.execute("drop trigger if exists " + name);
        ddl.execute(
            "create trigger %s before %s on jobs call %s"
                .formatted(name + QueuedJobsTrigger.BEGIN, event, trigger));
        ddl.execute(
            "create trigger %s after %s on jobs for each row call %s"
                .formatted(name, event, trigger));
        ddl.execute(
            "create trigger %s after %s on jobs call %s"
                .formatted(name + QueuedJobsTrigger.END, event, trigger));
      }
    }
  }
}
