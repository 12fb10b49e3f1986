-- Registers the two workers with the coordinator (docker-compose.yml profile citus, service citus-setup).
-- Idempotent: a node already registered is left as it is.
SELECT citus_set_coordinator_host('citus-coordinator', 5432);
SELECT citus_add_node('citus-worker-1', 5432) WHERE NOT EXISTS (SELECT 1 FROM pg_dist_node WHERE nodename = 'citus-worker-1');
SELECT citus_add_node('citus-worker-2', 5432) WHERE NOT EXISTS (SELECT 1 FROM pg_dist_node WHERE nodename = 'citus-worker-2');
-- created on the coordinator, propagated by Citus to every worker
CREATE EXTENSION IF NOT EXISTS postgis;
CREATE EXTENSION IF NOT EXISTS pg_trgm;
SELECT nodename, nodeport, noderole FROM pg_dist_node ORDER BY nodeid;
