/**
 * The adapter to the database: every SQL statement and table name of gpuq, and the mapping of the
 * entities ({@code META-INF/orm.xml}). It implements the ports the features declare ({@code
 * job.JobStore}, {@code sweep.SweepStore} (with the sweep meters' figures), {@code node.NodeStore},
 * {@code retention.FinishedJobs}, {@code backup.OnlineCopy}, {@code fairshare.UsageLedger}, {@code
 * schedule.OwnerCounts}) and turns the database's exceptions into gpuq's own ({@code
 * job.StoreTimeoutException}, {@code job.JobStoreUnavailableException}). Only the wiring uses it;
 * which class writes and reads which table is in docs/architecture.md ("Where the SQL lives").
 *
 * <p>Two styles, each for its purpose. JPA ({@code JpaJobStore}, {@code JpaNodeStore}, their
 * repositories) where the entity's versioned read-modify-write is what is wanted: a job loaded,
 * changed by its own rules ({@code Job.endAttempt}, a cancel, a requeue), saved with its {@code
 * version} checked; the repositories have no fragment. Every other statement is in a {@code *Table}
 * class: Spring's {@code JdbcClient}, named parameters, written out in full, one class per table
 * ({@code jobs} has two: {@code JobTable}, the scheduler's statements and a page's ids, and {@code
 * TrialTable}, a sweep's trials many rows at once); called inside the JPA transaction, its
 * statements run on that transaction's connection ({@code JpaTransactionManager} binds it for
 * {@code DataSourceUtils}), so the claim's and the success's statements ({@code JobTable}) commit
 * or roll back with the entity's writes.
 *
 * <p>Where a {@code *Table} class goes below {@code JdbcClient}, it says why: SQL generated from
 * data keeps positional parameters, bound by index ({@code TransitionSql}'s statements from {@code
 * job.JobTransition}, {@code TrialTable}'s multi-row inserts); batches go through {@code
 * JdbcTemplate.batchUpdate} (a client writes none); PostgreSQL's {@code COPY} takes the driver's
 * {@code CopyManager} on the transaction's connection, through {@code JdbcTemplate}'s {@code
 * ConnectionCallback}.
 */
package io.gpuq.storage;
