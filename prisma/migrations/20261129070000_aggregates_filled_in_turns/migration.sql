-- The three aggregates over every claim become tables filled from a plain view of the same definition
-- (docs/decisions/0079). A REFRESH MATERIALIZED VIEW is one statement; on the embedded database, which runs one
-- statement at a time, a first start's refresh held every request for tens of seconds (issue 32). A table can be
-- filled in turns (a range of patients or providers per statement) beside a serving server, then swapped in.
-- The definitions are unchanged (20261121032555_data_platform_spatial, 20261126024500_provider_prices_carrier_sums);
-- the rows already there are kept.

CREATE VIEW "mv_patient_diagnoses_source" AS
SELECT x."patient_id", x."icd10_code", p."gender", p."age", p."payer_type", p."state", p."county_fips", p."zip_code",
       x."claim_count", x."first_service_date", x."last_service_date"
FROM (
  SELECT c."patient_id", d."icd10_code", count(DISTINCT c."id")::int AS "claim_count",
         min(c."service_date") AS "first_service_date", max(c."service_date") AS "last_service_date"
  FROM "claim_diagnoses" d JOIN "claims" c ON c."id" = d."claim_id"
  GROUP BY c."patient_id", d."icd10_code"
) x
JOIN "patients" p ON p."id" = x."patient_id";

CREATE VIEW "mv_provider_code_volume_source" AS
SELECT c."rendering_npi" AS "npi", 'icd10'::text AS "code_kind", d."icd10_code" AS "code",
       count(DISTINCT c."id")::int AS "claim_count", count(DISTINCT c."patient_id")::int AS "patient_count"
FROM "claims" c JOIN "claim_diagnoses" d ON d."claim_id" = c."id"
GROUP BY c."rendering_npi", d."icd10_code"
UNION ALL
SELECT c."rendering_npi", 'procedure'::text, l."procedure_code",
       count(DISTINCT c."id")::int, count(DISTINCT c."patient_id")::int
FROM "claims" c JOIN "claim_procedures" l ON l."claim_id" = c."id"
GROUP BY c."rendering_npi", l."procedure_code";

CREATE VIEW "mv_provider_prices_source" AS
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
  FROM "claims" c JOIN "claim_procedures" l ON l."claim_id" = c."id"
  GROUP BY c."rendering_npi", l."procedure_code", c."insurer_name"
) x
GROUP BY x."npi", x."procedure_code"
ORDER BY x."npi", x."procedure_code";

CREATE TABLE "mv_patient_diagnoses_table" AS TABLE "mv_patient_diagnoses";
DROP MATERIALIZED VIEW "mv_patient_diagnoses";
ALTER TABLE "mv_patient_diagnoses_table" RENAME TO "mv_patient_diagnoses";
CREATE INDEX "mv_patient_diagnoses_code" ON "mv_patient_diagnoses" ("icd10_code" text_pattern_ops);
CREATE INDEX "mv_patient_diagnoses_state" ON "mv_patient_diagnoses" ("state");
CREATE INDEX "mv_patient_diagnoses_county" ON "mv_patient_diagnoses" ("county_fips");
CREATE INDEX "mv_patient_diagnoses_zip" ON "mv_patient_diagnoses" ("zip_code");

CREATE TABLE "mv_provider_code_volume_table" AS TABLE "mv_provider_code_volume";
DROP MATERIALIZED VIEW "mv_provider_code_volume";
ALTER TABLE "mv_provider_code_volume_table" RENAME TO "mv_provider_code_volume";
CREATE INDEX "mv_provider_code_volume_code" ON "mv_provider_code_volume" ("code_kind", "code", "npi");
CREATE INDEX "mv_provider_code_volume_npi" ON "mv_provider_code_volume" ("npi");

CREATE TABLE "mv_provider_prices_table" AS TABLE "mv_provider_prices";
DROP MATERIALIZED VIEW "mv_provider_prices";
ALTER TABLE "mv_provider_prices_table" RENAME TO "mv_provider_prices";
CREATE INDEX "mv_provider_prices_npi_code" ON "mv_provider_prices" ("npi", "procedure_code");
