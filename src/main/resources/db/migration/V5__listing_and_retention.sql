-- A page of the job list reads its rows in id order (newest first) from an index that holds the
-- filter's columns before the id, and stops at the limit: with a million finished jobs, a page
-- costs what it costs with a hundred. (owner, id) is V1's jobs_owner.
create index jobs_state_newest on jobs (state, id desc);
create index jobs_owner_state_newest on jobs (owner, state, id desc);
-- Retention finds the jobs that finished longest ago without reading the others.
create index jobs_finished on jobs (finished_at);
