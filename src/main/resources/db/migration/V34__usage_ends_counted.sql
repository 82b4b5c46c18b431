-- An end stored late is not lost (issue 37). The usage roll-up counts the ends whose time is
-- before its mark; an end committed after the mark has passed its time (another node's clock
-- behind, a retry of a stored end after a full disk) was in no chunk. So each chunk also writes
-- down which ends it counted among the last hours before its mark (attempt 0: the job's own
-- finish, n: its attempt n), and the roll-up adds every end of those hours that is not written
-- down, once, writing it down too (UsageTable.rollUpLate). Rows older than those hours go.
create table usage_counted (
    job_id       varchar(26) not null,
    attempt      integer     not null,
    finished_at  timestamp with time zone not null,
    primary key (job_id, attempt)
);
create index usage_counted_finished on usage_counted (finished_at);
-- Ends before this were rolled up before the list was kept: never looked for again.
alter table usage_mark add column counted_from timestamp with time zone;
update usage_mark set counted_from = rolled_up_to;
