/**
 * The embedded H2 database's safety: a periodic online backup into {@code <data-dir>/backups/}
 * ({@code DatabaseBackups}, {@code BackupDuty}), and a start on a damaged database file answered
 * with what happened and how to restore the latest backup ({@code DamagedDatabaseAnalyzer}).
 * PostgreSQL is backed up by its own tools (docs/backup.md). An edge: plain JDBC.
 */
package io.gpuq.backup;
