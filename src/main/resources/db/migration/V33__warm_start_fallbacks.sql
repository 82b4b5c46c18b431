-- Warm starts (issue 36): the attempts that asked for a warm start and started cold, with why
-- (a zygote that could not import its modules, or could not start): shown on the sweep and the job.
create table warm_start_fallbacks (
    job_id      varchar(26)   not null references jobs (id) on delete cascade,
    attempt     int           not null,
    reason      varchar(2000) not null,
    recorded_at timestamp with time zone not null,
    primary key (job_id, attempt)
);
