-- Citrus on Citus: the distribution plan (docs/scaling.md "Beyond one database machine").
--
-- Run once on the coordinator after the migrations and before the first data load:
--   docker compose --profile citus up -d --build
--   DATABASE_URL=postgres://citrus@127.0.0.1:5434/citrus npm run db:migrate      (the schema, as on any PostgreSQL)
--   psql postgres://citrus@127.0.0.1:5434/citrus -v ON_ERROR_STOP=1 -f scripts/citus/distribute.sql
--
-- NOT RUN on the development machines (no Docker engine, Citus cannot be installed there): this file is the plan,
-- written against the schema of prisma/migrations and Citus 12.1's documented rules, and unverified until run.
--
-- Plan
--   * Distributed by patient, co-located (one shard holds a patient's rows of every table): patients (id),
--     claims, claim_diagnoses, claim_procedures, pharmacy_claims, snakebite_cases (patient_id). They hold
--     ~99 % of the rows at full scale. Every one of them carries patient_id in the schema (the claim child tables
--     since migration 20261130115440_claim_lines_patient_id, written by the loaders); Citus also needs it in every
--     primary key and unique constraint, and in foreign keys between distributed tables: this file re-keys them.
--   * Reference tables (a full copy on every node, joined locally on each shard): the geography (states,
--     counties, zips), the code sets (icd10_codes, procedure_codes, shoppable_procedures, specialties), insurers,
--     health systems, facilities, providers, facility prices, antivenom purchases, sales territories, plan cost
--     sharing.
--   * Local on the coordinator (small, transactional, written per request): accounts, companies, tokens,
--     credential limits, the outbox, audit and analytics events, AI Hub, data_loads and the TiC import tables.
--   * Materialized views stay on the coordinator: Citus stores a materialized view over distributed tables as a
--     coordinator table, and REFRESH runs its query across the shards in parallel.
--
-- What Citus does not distribute, and the SQL that avoids it (docs/scaling.md lists where the code stands):
--   * a foreign key from a distributed table to another must include the distribution column: claims' children
--     reference claims (patient_id, id), claims and the others reference patients (id);
--   * a primary key or unique constraint of a distributed table must include the distribution column;
--   * a reference table may not have a foreign key to a distributed or a local table (none here);
--   * no snapshot isolation across shards: a multi-shard read in REPEATABLE READ sees each shard at its own
--     moment. The Care Select candidate build reads providers (reference) and the mv_* views (coordinator), so
--     its one-snapshot read still holds; an engine build that reads claims across shards while a load runs must
--     rely on the data version instead (it already does: a version is switched to when its load has finished).

\set ON_ERROR_STOP on

-- 1. The materialized views depend on tables whose keys change: their definitions and indexes are kept, the
--    views dropped, and recreated at the end (empty: the first load refreshes them).
CREATE TEMP TABLE saved_views AS
  SELECT matviewname AS name, definition FROM pg_matviews WHERE schemaname = 'public';
CREATE TEMP TABLE saved_view_indexes AS
  SELECT indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename IN (SELECT name FROM saved_views);
DO $$
DECLARE v record;
BEGIN
  FOR v IN SELECT name FROM saved_views LOOP
    EXECUTE format('DROP MATERIALIZED VIEW IF EXISTS %I CASCADE', v.name);
  END LOOP;
END $$;

-- 2. Keys that carry the patient (the column itself is in the schema: claim lines hold their claim's patient).
ALTER TABLE claim_diagnoses DROP CONSTRAINT claim_diagnoses_claim_id_fkey;
ALTER TABLE claim_procedures DROP CONSTRAINT claim_procedures_claim_id_fkey;
ALTER TABLE claims DROP CONSTRAINT claims_patient_id_fkey;
ALTER TABLE pharmacy_claims DROP CONSTRAINT pharmacy_claims_patient_id_fkey;
ALTER TABLE snakebite_cases DROP CONSTRAINT snakebite_cases_patient_id_fkey;

ALTER TABLE claims DROP CONSTRAINT claims_pkey, ADD PRIMARY KEY (patient_id, id);
ALTER TABLE claim_diagnoses DROP CONSTRAINT claim_diagnoses_pkey, ADD PRIMARY KEY (patient_id, claim_id, sequence);
ALTER TABLE claim_procedures DROP CONSTRAINT claim_procedures_pkey, ADD PRIMARY KEY (patient_id, claim_id, line_number);
ALTER TABLE pharmacy_claims DROP CONSTRAINT pharmacy_claims_pkey, ADD PRIMARY KEY (patient_id, id);
ALTER TABLE snakebite_cases DROP CONSTRAINT snakebite_cases_pkey, ADD PRIMARY KEY (patient_id, id);
-- look-ups by claim id alone (drill-downs) keep an index; it cannot be unique across shards
CREATE INDEX IF NOT EXISTS claims_id_idx ON claims (id);

-- 3. Reference tables, parents before children (a reference table's foreign keys point at reference tables).
SELECT create_reference_table(t) FROM unnest(ARRAY[
  'states', 'counties', 'zips', 'health_systems', 'facilities', 'providers', 'facility_prices',
  'antivenom_purchases', 'sales_territories', 'sales_territory_counties', 'icd10_codes', 'procedure_codes',
  'shoppable_procedures', 'specialties', 'insurers', 'plan_cost_sharing'
]) AS t;

-- 4. Distributed by patient, every table co-located with patients.
SELECT create_distributed_table('patients', 'id');
SELECT create_distributed_table('claims', 'patient_id', colocate_with => 'patients');
SELECT create_distributed_table('claim_diagnoses', 'patient_id', colocate_with => 'patients');
SELECT create_distributed_table('claim_procedures', 'patient_id', colocate_with => 'patients');
SELECT create_distributed_table('pharmacy_claims', 'patient_id', colocate_with => 'patients');
SELECT create_distributed_table('snakebite_cases', 'patient_id', colocate_with => 'patients');

-- 5. The foreign keys again, with the distribution column (allowed between co-located tables).
ALTER TABLE claims ADD CONSTRAINT claims_patient_id_fkey FOREIGN KEY (patient_id) REFERENCES patients (id) ON DELETE CASCADE;
ALTER TABLE claim_diagnoses ADD CONSTRAINT claim_diagnoses_claim_fkey
  FOREIGN KEY (patient_id, claim_id) REFERENCES claims (patient_id, id) ON DELETE CASCADE;
ALTER TABLE claim_procedures ADD CONSTRAINT claim_procedures_claim_fkey
  FOREIGN KEY (patient_id, claim_id) REFERENCES claims (patient_id, id) ON DELETE CASCADE;
ALTER TABLE pharmacy_claims ADD CONSTRAINT pharmacy_claims_patient_id_fkey FOREIGN KEY (patient_id) REFERENCES patients (id) ON DELETE CASCADE;
ALTER TABLE snakebite_cases ADD CONSTRAINT snakebite_cases_patient_id_fkey FOREIGN KEY (patient_id) REFERENCES patients (id) ON DELETE CASCADE;

-- 6. The materialized views back on the coordinator, in dependency order (a view over another view waits for it),
--    with their indexes. Every join of claims with their lines in them and in the views the claim aggregates are
--    filled from is on (claim id, patient id), co-located: no repartition join is needed.
DO $$
DECLARE
  v record;
  pending int;
  progress boolean := true;
BEGIN
  WHILE progress LOOP
    progress := false;
    FOR v IN SELECT s.name, s.definition FROM saved_views s
             WHERE NOT EXISTS (SELECT 1 FROM pg_matviews m WHERE m.schemaname = 'public' AND m.matviewname = s.name) LOOP
      BEGIN
        EXECUTE format('CREATE MATERIALIZED VIEW %I AS %s WITH NO DATA', v.name, rtrim(v.definition, E'; \n'));
        progress := true;
      EXCEPTION WHEN undefined_table THEN
        NULL; -- depends on a view not recreated yet
      END;
    END LOOP;
  END LOOP;
  SELECT count(*) INTO pending FROM saved_views s
    WHERE NOT EXISTS (SELECT 1 FROM pg_matviews m WHERE m.schemaname = 'public' AND m.matviewname = s.name);
  IF pending > 0 THEN
    RAISE EXCEPTION '% materialized views could not be recreated', pending;
  END IF;
  FOR v IN SELECT indexdef FROM saved_view_indexes LOOP
    EXECUTE v.indexdef;
  END LOOP;
END $$;

SELECT logicalrelid::regclass AS "table", partmethod AS method, colocationid FROM pg_dist_partition ORDER BY 1;
