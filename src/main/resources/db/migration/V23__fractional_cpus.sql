-- A job's cores may be a fraction (issue 34): 0.25 shares a pool of cores, held to its share by
-- CPU bandwidth. Exact decimals in thousandths (millicores, as Kubernetes counts them), so that sums
-- of fractions never drift; whole numbers read back as before (1 stays 1), and the default 1 and
-- the not-null constraint stay. SET DATA TYPE is read alike by H2 and PostgreSQL.
alter table jobs alter column cpus set data type numeric(10, 3);
