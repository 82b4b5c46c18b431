-- The scheduler reads CPU-only jobs (gpus = 0) and GPU jobs apart, each in queue order: a pass with
-- one free CPU slot reads one row instead of scanning past every queued GPU job.
create index jobs_queue_by_kind on jobs (state, gpus, priority desc, id);
