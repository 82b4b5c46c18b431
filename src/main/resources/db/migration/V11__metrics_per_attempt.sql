-- A retried job's new attempt is a new run with a metrics file of its own (on another node a new
-- file; on the same node gpuq moves the last attempt's file aside before it starts): its reading
-- starts at the file's start, and its points are kept apart from an earlier attempt's, so that the
-- early-stopping rules judge the run that is going on, not a failed one's values mixed in.
alter table job_metrics add column attempt integer not null default 1;
-- The attempt that metrics_offset ... metric_best describe. A job whose attempt has moved on reads
-- its new file from the start, and shows nothing of the earlier attempt once it runs.
alter table jobs add column metrics_attempt integer not null default 1;

-- Rows read before this change describe the attempt the job is at: reading and judging go on as
-- they did.
update jobs set metrics_attempt = attempt;
update job_metrics set attempt = (select j.attempt from jobs j where j.id = job_metrics.job_id);
