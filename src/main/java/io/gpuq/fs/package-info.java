/**
 * The data directory: its layout and modes, the free space it needs ({@code StorageGuard}, the 507
 * answers), and reading and writing files that a job may have tampered with: never following a
 * symbolic link, never blocking on a FIFO, never reading more than a bound. Plain Java (JNA for
 * {@code open(2)}).
 */
package io.gpuq.fs;
