-- A trial's sweep metric name, copied onto its row when its metrics are written, so that reading a
-- job no longer reads the sweeps table (it was a formula over sweeps in the job's mapping).
alter table jobs add column metric_name varchar(200);

update jobs set metric_name = (select s.metric_name from sweeps s where s.id = jobs.sweep_id)
  where sweep_id is not null and metrics_latest is not null;
