-- Each owner's recent usage for fair share, shared by every node and kept across restarts. Each
-- node adds only what its own running jobs used: an amount of a dominant-share-seconds used at
-- instant t is added as a * 2^((t - epoch) / half-life), so the row is worth
-- scaled_usage * 2^(-(now - epoch) / half-life) at any later instant (fairshare.RecentUsage). The
-- epoch moves forward, and the sum shrinks with it, before the scale leaves a double's range.
create table owner_usage (
    owner          varchar(100) primary key,
    scaled_usage   double precision not null,
    epoch          timestamp with time zone not null
);
