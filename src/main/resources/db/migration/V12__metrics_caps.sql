-- What one job's metrics may store is bounded (issue 24, io.gpuq.job.MetricsCaps): the columns
-- below are MetricsCursor's state of those caps for the job's current attempt.
-- The points this attempt's file reported, kept or not: the next point's index.
alter table jobs add column metrics_points bigint not null default 0;
-- Past the first points, a point is kept when its index is on this stride (doubling as it thins).
alter table jobs add column metrics_stride bigint not null default 1;
-- Values skipped because their name came after the cap on names was reached.
alter table jobs add column metrics_skipped_values bigint not null default 0;
-- Where reading stood when it first read on after the job's end (-1: not yet): it reads a bounded
-- amount more, then stops...
alter table jobs add column metrics_end_offset bigint not null default -1;
-- ...and says so: the file's rest was never read.
alter table jobs add column metrics_cut boolean not null default false;

-- Each kept point's index in its attempt, for thinning to a doubled stride. Points stored before
-- this change have none and are never thinned.
alter table job_metrics add column point_index bigint;

-- A view's latest values were once unbounded (a job could report a million names): such a value,
-- longer than any that the cap on names allows, is dropped rather than loaded at every poll.
update jobs set metrics_latest = null where length(metrics_latest) > 65536;
