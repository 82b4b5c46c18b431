-- Notifications (issue 37): the outbox. A job's or a sweep's notify targets are written here, one
-- row per target and event, WAITING, in the transaction that stores the job (or the sweep). The
-- event itself is the job's own durable state move (started, ended), committed by whichever path
-- moved it; a duty turns a WAITING row DUE once it reads that move committed (its body then frozen),
-- or SKIPPED when the event can no longer happen (FAILED for a job that succeeded). So a crash loses
-- no notification, and none is sent for a move that was rolled back. DUE rows are claimed by a
-- conditional update (claimed_until), sent, and end DELIVERED or GAVE_UP.
create table notifications (
    -- The delivery's id, sent with every try for receivers to de-duplicate.
    id             varchar(36)   primary key,
    job_id         varchar(26),
    sweep_id       varchar(26),
    owner          varchar(100)  not null,
    event          varchar(16)   not null,
    url            varchar(2000) not null,
    format         varchar(16)   not null,
    -- WAITING, DUE, DELIVERED, GAVE_UP or SKIPPED.
    status         varchar(16)   not null,
    -- Tries so far.
    attempts       integer       not null,
    created_at     timestamp with time zone not null,
    -- When a duty found the event happened; the give-up bound counts from here.
    happened_at    timestamp with time zone,
    -- The next try's time, while DUE.
    due_at         timestamp with time zone,
    -- A node that claimed the row sends it until then; after, another node may.
    claimed_until  timestamp with time zone,
    finished_at    timestamp with time zone,
    body           varchar,
    last_error     varchar(2000)
);
-- The duty's seeks: waiting rows, due rows by time, finished rows by age.
create index notifications_status on notifications (status, due_at);
create index notifications_job on notifications (job_id);
create index notifications_sweep on notifications (sweep_id);
