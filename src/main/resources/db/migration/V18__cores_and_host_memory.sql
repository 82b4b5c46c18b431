-- What a job takes of its node besides GPUs (issue 27): whole cores, and host memory reserved and
-- capped (null: none). A job stored before jobs could ask, or inserted by an older node sharing the
-- database, takes 1 core and no host memory: it runs as it did.
alter table jobs add column cpus integer default 1 not null;
alter table jobs add column memory_bytes bigint;
alter table jobs add column requested_memory_bytes bigint;
