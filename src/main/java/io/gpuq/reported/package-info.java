/**
 * The metrics a job reports in its metrics file: reading the file (its lines, the names they may
 * use, where reading stands) and the values a job's view shows (the points and latest values, one
 * update of a read, a page of a series, the caps on what is kept). Plain Java; the rows they are
 * stored in are the job store's.
 */
package io.gpuq.reported;
