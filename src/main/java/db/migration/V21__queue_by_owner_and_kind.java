package db.migration;

import java.sql.Statement;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

/**
 * A scheduling pass reads each owner's first queued jobs of one kind (GPU jobs, or CPU-only jobs)
 * by an index seek per owner, and finds the owners by skipping from one owner to the next in the
 * same index. The seek needs the kind as a column after the owner: as an expression of {@code gpus}
 * an owner's GPU jobs would be spread over one range per GPU count, and the seek for an owner's
 * CPU-only jobs would pass over all of their queued GPU jobs. So the kind is a column computed by
 * the database from {@code gpus} (no write path, nor an older node sharing the database, can store
 * it wrong). The index holds what choosing the heads needs (the sweep, the time queued), so that no
 * row is read for the jobs not chosen. It replaces V16's {@code jobs_queue_by_owner}, whose
 * statement read every queued key, and serves what that one did ({@code state, owner} first).
 *
 * <p>A Java migration because the two databases spell a stored generated column differently:
 * PostgreSQL wants {@code stored}, which H2 does not accept (H2's generated columns are stored).
 */
public class V21__queue_by_owner_and_kind extends BaseJavaMigration {

  @Override
  public void migrate(Context context) throws Exception {
    boolean postgres = Databases.isPostgres(context);
    try (Statement ddl = context.getConnection().createStatement()) {
      ddl.execute(
          "alter table jobs add column gpu_job boolean generated always as (gpus > 0)"
              + (postgres ? " stored" : ""));
      ddl.execute(
          "create index jobs_queue_by_owner_and_kind on jobs"
              + " (state, owner, gpu_job, priority desc, id, sweep_id, queued_at)");
      ddl.execute("drop index jobs_queue_by_owner");
    }
  }
}
