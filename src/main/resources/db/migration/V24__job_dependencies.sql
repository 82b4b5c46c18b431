-- Dependencies between jobs (issue 37). A job's dependencies are read and written whole, with the
-- job: JSON, like its placement. A job that waits for one stays QUEUED but is held: no scheduling
-- pass reads it, so it takes no place and holds no one up, until a duty on some node releases it
-- (every dependency met) or cancels it (one can no longer be met).
alter table jobs add column depends_on varchar;
alter table jobs add column held boolean default false not null;
-- The held jobs, for that duty: few, and read by a seek.
create index jobs_held on jobs (held, state, id);
-- The queue's seeks leave held jobs out; with the flag in the index they still read the index
-- alone (PostgreSQL's index-only scans), as V21 made them.
drop index jobs_queue_by_owner_and_kind;
create index jobs_queue_by_owner_and_kind on jobs
    (state, owner, gpu_job, priority desc, id, sweep_id, queued_at, held);
