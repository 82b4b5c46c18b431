-- Each poll, a node reads the metrics files of its jobs not read to their end (issue 14): found by
-- node among the few jobs whose metrics_done is still false, not by scanning every job it ran.
create index jobs_metrics_reading on jobs (node, metrics_done);
