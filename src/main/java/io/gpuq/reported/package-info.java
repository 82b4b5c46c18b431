/**
 * The metrics a job reports in its metrics file, as values: the points and latest values a job's
 * view shows, one update of a read, a page of a series, where reading a file stands and the caps on
 * what is kept. Plain Java; the rows they are stored in are the job store's.
 */
package io.gpuq.reported;
