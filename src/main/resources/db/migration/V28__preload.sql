-- The modules a job's warm start imports once, for all the trials that fork from it (issue 36): a
-- JSON list of module names, null for a cold start (every job stored before, or by an older node).
alter table jobs add column preload varchar(4000);
