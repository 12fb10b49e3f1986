-- A claim's diagnoses and lines carry its patient (issue 34 item 6, docs/scaling.md "Beyond one database machine"):
-- patient_id is the distribution column of every claim table under Citus, and a join of claims with their lines on
-- (claim id, patient id) is co-located there (one shard holds a patient's rows of every table); on the claim id
-- alone Citus runs it only as a repartition join. On one PostgreSQL the column changes nothing but 8 bytes a row.
--
-- Rows already loaded take their claim's patient: one UPDATE ... FROM claims per table (every row rewritten: at the
-- full scale tens of millions of rows, minutes each and the table's size again until a vacuum; docs/data.md).
-- The keys stay (claim_id, sequence) and (claim_id, line_number): on one node they are unique without the patient,
-- and lookups by claim id alone keep their index; scripts/citus/distribute.sql re-keys them with patient_id first,
-- which Citus requires. No index on patient_id alone: nothing reads the lines by patient without their claim, and a
-- load would pay for it.

ALTER TABLE "claim_diagnoses" ADD COLUMN "patient_id" BIGINT;
ALTER TABLE "claim_procedures" ADD COLUMN "patient_id" BIGINT;

UPDATE "claim_diagnoses" d SET "patient_id" = c."patient_id" FROM "claims" c WHERE c."id" = d."claim_id";
UPDATE "claim_procedures" l SET "patient_id" = c."patient_id" FROM "claims" c WHERE c."id" = l."claim_id";

ALTER TABLE "claim_diagnoses" ALTER COLUMN "patient_id" SET NOT NULL;
ALTER TABLE "claim_procedures" ALTER COLUMN "patient_id" SET NOT NULL;

-- The definitions the claim aggregates are filled from (20261129070000_aggregates_filled_in_turns), joined on the
-- patient too; their columns and the tables filled from them are unchanged.
CREATE OR REPLACE VIEW "mv_patient_diagnoses_source" AS
SELECT x."patient_id", x."icd10_code", p."gender", p."age", p."payer_type", p."state", p."county_fips", p."zip_code",
       x."claim_count", x."first_service_date", x."last_service_date"
FROM (
  SELECT c."patient_id", d."icd10_code", count(DISTINCT c."id")::int AS "claim_count",
         min(c."service_date") AS "first_service_date", max(c."service_date") AS "last_service_date"
  FROM "claim_diagnoses" d JOIN "claims" c ON c."id" = d."claim_id" AND c."patient_id" = d."patient_id"
  GROUP BY c."patient_id", d."icd10_code"
) x
JOIN "patients" p ON p."id" = x."patient_id";

CREATE OR REPLACE VIEW "mv_provider_code_volume_source" AS
SELECT c."rendering_npi" AS "npi", 'icd10'::text AS "code_kind", d."icd10_code" AS "code",
       count(DISTINCT c."id")::int AS "claim_count", count(DISTINCT c."patient_id")::int AS "patient_count"
FROM "claims" c JOIN "claim_diagnoses" d ON d."claim_id" = c."id" AND d."patient_id" = c."patient_id"
GROUP BY c."rendering_npi", d."icd10_code"
UNION ALL
SELECT c."rendering_npi", 'procedure'::text, l."procedure_code",
       count(DISTINCT c."id")::int, count(DISTINCT c."patient_id")::int
FROM "claims" c JOIN "claim_procedures" l ON l."claim_id" = c."id" AND l."patient_id" = c."patient_id"
GROUP BY c."rendering_npi", l."procedure_code";

CREATE OR REPLACE VIEW "mv_provider_prices_source" AS
SELECT x."npi", x."procedure_code",
       (sum(x."priced_lines"))::int AS "line_count",
       round(sum(x."sum_list") / nullif(sum(x."priced_lines"), 0), 2) AS "avg_list_amount",
       round(sum(x."sum_negotiated_unit") / nullif(sum(x."priced_lines"), 0), 2) AS "avg_negotiated_amount",
       round(sum(x."sum_insurer") / nullif(sum(x."priced_lines"), 0), 2) AS "avg_insurer_amount",
       round(sum(x."sum_patient") / nullif(sum(x."priced_lines"), 0), 2) AS "avg_patient_amount",
       (sum(x."lines"))::int AS "all_line_count",
       sum(x."sum_negotiated") AS "sum_negotiated",
       array_agg(x."insurer_name") AS "carriers",
       array_agg(x."sum_negotiated") AS "carrier_sum_negotiated",
       array_agg(x."lines"::int) AS "carrier_line_count"
FROM (
  SELECT c."rendering_npi" AS "npi", l."procedure_code", c."insurer_name",
         count(*) AS "lines", sum(l."negotiated_amount") AS "sum_negotiated",
         count(*) FILTER (WHERE l."units" > 0) AS "priced_lines",
         sum(l."list_amount" / l."units") FILTER (WHERE l."units" > 0) AS "sum_list",
         sum(l."negotiated_amount" / l."units") FILTER (WHERE l."units" > 0) AS "sum_negotiated_unit",
         sum(l."insurer_amount" / l."units") FILTER (WHERE l."units" > 0) AS "sum_insurer",
         sum(l."patient_amount" / l."units") FILTER (WHERE l."units" > 0) AS "sum_patient"
  FROM "claims" c JOIN "claim_procedures" l ON l."claim_id" = c."id" AND l."patient_id" = c."patient_id"
  GROUP BY c."rendering_npi", l."procedure_code", c."insurer_name"
) x
GROUP BY x."npi", x."procedure_code"
ORDER BY x."npi", x."procedure_code";
