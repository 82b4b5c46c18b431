-- Fair share reads the first queued jobs of every owner at once (a window ranked per owner in
-- scheduling order): this index hands the window each owner's queued jobs in that order, with the
-- kind (gpus) to filter on, so that neither H2 nor PostgreSQL sorts the queue.
create index jobs_queue_by_owner on jobs (state, owner, priority desc, id, gpus);
