/**
 * The adapter to the database: every SQL statement and table name of gpuq, and the mapping of the
 * entities ({@code META-INF/orm.xml}). It implements the ports the features declare ({@code
 * job.JobStore}, {@code sweep.SweepStore} (with the sweep meters' figures), {@code node.NodeStore},
 * {@code retention.FinishedJobs}, {@code backup.OnlineCopy}, {@code fairshare.UsageLedger}, {@code
 * schedule.OwnerCounts}) and turns the database's exceptions into gpuq's own ({@code
 * job.StoreTimeoutException}, {@code job.JobStoreUnavailableException}). Only the wiring uses it;
 * which class writes and reads which table is in docs/architecture.md ("Where the SQL lives").
 */
package io.gpuq.storage;
