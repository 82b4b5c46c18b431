-- Several gpuq instances, one per GPU node, share one database: each registers itself here and
-- heartbeats; a node that stops heartbeating has its running jobs declared LOST by the others.

create table nodes (
    name           varchar(200) primary key,
    labels         varchar      not null,
    backend        varchar(16)  not null,
    gpus           varchar      not null,
    started_at     timestamp with time zone not null,
    heartbeat_at   timestamp with time zone not null,
    version        bigint       not null
);

-- A job may ask for nodes by label: {"gpu-type": "h200"}.
alter table jobs add column node_selector varchar;
