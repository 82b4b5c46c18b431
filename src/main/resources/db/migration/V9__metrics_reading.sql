-- Each poll, a node reads the metrics files of its jobs not read to their end (issue 14): found by
-- node among the few jobs whose metrics_done is still false, not by scanning every job it ran.
create index jobs_metrics_reading on jobs (node, metrics_done);

-- Jobs that finished before gpuq gave workers GPUQ_METRICS_FILE have nothing to read: without
-- this, the first poll after the upgrade would look for a file of every job a node ever ran.
update jobs set metrics_done = true where state in ('SUCCEEDED', 'FAILED', 'CANCELLED');
