-- What each node can give its jobs (issue 27), written with every heartbeat and read by every node
-- (GET /api/v1/nodes): its allocatable cores and host memory (what it measured, less
-- gpuq.node.reserved-cpus and reserved-memory), and what its workers used at its last reading (CPU
-- cores, resident bytes). Null in a row an older node wrote: it reported none.
alter table nodes add column allocatable_cpus integer;
alter table nodes add column allocatable_memory_bytes bigint;
alter table nodes add column used_cpus double precision;
alter table nodes add column used_memory_bytes bigint;
