-- Data platform (issue 5): what Prisma cannot express. Runs on PostgreSQL 15+ / PostGIS 3.3+ and on
-- PGlite (PostgreSQL 18 / PostGIS 3.6); test/schema-parity.int.test.ts checks that both agree.

-- Points are GENERATED from latitude/longitude, so COPY, batched inserts and importers' upserts never
-- have to compute them and they can never disagree with the coordinates.
ALTER TABLE "zips" DROP COLUMN "geog";
ALTER TABLE "zips" ADD COLUMN "geog" geography(Point, 4326)
  GENERATED ALWAYS AS ((ST_SetSRID(ST_MakePoint("longitude", "latitude"), 4326))::geography) STORED;
ALTER TABLE "facilities" DROP COLUMN "geog";
ALTER TABLE "facilities" ADD COLUMN "geog" geography(Point, 4326)
  GENERATED ALWAYS AS ((ST_SetSRID(ST_MakePoint("longitude", "latitude"), 4326))::geography) STORED;
ALTER TABLE "providers" DROP COLUMN "geog";
ALTER TABLE "providers" ADD COLUMN "geog" geography(Point, 4326)
  GENERATED ALWAYS AS ((ST_SetSRID(ST_MakePoint("longitude", "latitude"), 4326))::geography) STORED;

-- Synthetic facilities and providers use ids 1..n (a re-seed replaces them); imported rows draw from
-- here, far above any synthetic id, so the two never collide.
ALTER SEQUENCE "facilities_id_seq" RESTART WITH 1000000001;
ALTER SEQUENCE "providers_id_seq" RESTART WITH 1000000001;

-- Spatial indexes: radius searches (ST_DWithin on geography) and region polygons.
CREATE INDEX "zips_geog_gist" ON "zips" USING gist ("geog");
CREATE INDEX "facilities_geog_gist" ON "facilities" USING gist ("geog");
CREATE INDEX "providers_geog_gist" ON "providers" USING gist ("geog");
CREATE INDEX "states_geom_gist" ON "states" USING gist ("geom");
CREATE INDEX "counties_geom_gist" ON "counties" USING gist ("geom");

-- Code prefixes (a code matches its sub-codes; E119 finds E11.9; 2744 finds 27447).
CREATE INDEX "icd10_codes_code_prefix" ON "icd10_codes" ("code" text_pattern_ops);
CREATE INDEX "icd10_codes_compact_prefix" ON "icd10_codes" ((replace("code", '.', '')) text_pattern_ops);
CREATE INDEX "procedure_codes_code_prefix" ON "procedure_codes" ("code" text_pattern_ops);
CREATE INDEX "claim_diagnoses_icd10_code_prefix" ON "claim_diagnoses" ("icd10_code" text_pattern_ops);

-- Typo-tolerant look-ups (pg_trgm): similarity / word_similarity, ILIKE '%...%'.
CREATE INDEX "specialties_display_name_trgm" ON "specialties" USING gin ("display_name" gin_trgm_ops);
CREATE INDEX "icd10_codes_description_trgm" ON "icd10_codes" USING gin ("description" gin_trgm_ops);
CREATE INDEX "icd10_codes_long_description_trgm" ON "icd10_codes" USING gin ("long_description" gin_trgm_ops);
CREATE INDEX "procedure_codes_description_trgm" ON "procedure_codes" USING gin ("description" gin_trgm_ops);
CREATE INDEX "procedure_codes_long_description_trgm" ON "procedure_codes" USING gin ("long_description" gin_trgm_ops);
CREATE INDEX "shoppable_procedures_name_trgm" ON "shoppable_procedures" USING gin ("name" gin_trgm_ops);
CREATE INDEX "shoppable_procedures_cpt_codes" ON "shoppable_procedures" USING gin ("cpt_codes");

-- INSURANCE VARIABLES DATA of the data dictionary: one row per provider and insurer, read from the
-- providers' network map (the map is what the API serves; a table would repeat it ~15 times per provider).
CREATE VIEW "provider_network_participation" AS
SELECT p."npi", n.key AS "insurer_name", i."kind" AS "plan_type", (n.value)::boolean AS "in_network", p."last_verified_at"
FROM "providers" p
CROSS JOIN LATERAL jsonb_each_text(p."aggregated_insurance_networks_v1") AS n(key, value)
LEFT JOIN "insurers" i ON i."name" = n.key;

-- Aggregates, always computed from the patient-level rows; refreshed by the loader after a seed or an
-- import (REFRESH MATERIALIZED VIEW). Created populated (empty) so that readers never fail before a load.

-- Distinct patients per diagnosis code with the patient's attributes: Atlas counts distinct patients
-- over any set of codes / prefixes, by region, gender, age and payer type.
CREATE MATERIALIZED VIEW "mv_patient_diagnoses" AS
SELECT x."patient_id", x."icd10_code", p."gender", p."age", p."payer_type", p."state", p."county_fips", p."zip_code",
       x."claim_count", x."first_service_date", x."last_service_date"
FROM (
  SELECT c."patient_id", d."icd10_code", count(DISTINCT c."id")::int AS "claim_count",
         min(c."service_date") AS "first_service_date", max(c."service_date") AS "last_service_date"
  FROM "claim_diagnoses" d JOIN "claims" c ON c."id" = d."claim_id"
  GROUP BY c."patient_id", d."icd10_code"
) x
JOIN "patients" p ON p."id" = x."patient_id";
CREATE INDEX "mv_patient_diagnoses_code" ON "mv_patient_diagnoses" ("icd10_code" text_pattern_ops);
CREATE INDEX "mv_patient_diagnoses_state" ON "mv_patient_diagnoses" ("state");
CREATE INDEX "mv_patient_diagnoses_county" ON "mv_patient_diagnoses" ("county_fips");
CREATE INDEX "mv_patient_diagnoses_zip" ON "mv_patient_diagnoses" ("zip_code");

-- Volume of each diagnosis and procedure code per rendering provider (Care Select quality of care).
CREATE MATERIALIZED VIEW "mv_provider_code_volume" AS
SELECT c."rendering_npi" AS "npi", 'icd10'::text AS "code_kind", d."icd10_code" AS "code",
       count(DISTINCT c."id")::int AS "claim_count", count(DISTINCT c."patient_id")::int AS "patient_count"
FROM "claims" c JOIN "claim_diagnoses" d ON d."claim_id" = c."id"
GROUP BY c."rendering_npi", d."icd10_code"
UNION ALL
SELECT c."rendering_npi", 'procedure'::text, l."procedure_code",
       count(DISTINCT c."id")::int, count(DISTINCT c."patient_id")::int
FROM "claims" c JOIN "claim_procedures" l ON l."claim_id" = c."id"
GROUP BY c."rendering_npi", l."procedure_code";
CREATE INDEX "mv_provider_code_volume_code" ON "mv_provider_code_volume" ("code_kind", "code", "npi");
CREATE INDEX "mv_provider_code_volume_npi" ON "mv_provider_code_volume" ("npi");

-- Average unit prices per rendering provider and procedure (Care Select cost of care).
CREATE MATERIALIZED VIEW "mv_provider_prices" AS
SELECT c."rendering_npi" AS "npi", l."procedure_code", count(*)::int AS "line_count",
       round(avg(l."list_amount" / l."units"), 2) AS "avg_list_amount",
       round(avg(l."negotiated_amount" / l."units"), 2) AS "avg_negotiated_amount",
       round(avg(l."insurer_amount" / l."units"), 2) AS "avg_insurer_amount",
       round(avg(l."patient_amount" / l."units"), 2) AS "avg_patient_amount"
FROM "claims" c JOIN "claim_procedures" l ON l."claim_id" = c."id"
WHERE l."units" > 0
GROUP BY c."rendering_npi", l."procedure_code";
CREATE INDEX "mv_provider_prices_code" ON "mv_provider_prices" ("procedure_code", "npi");
CREATE INDEX "mv_provider_prices_npi" ON "mv_provider_prices" ("npi");

-- Patient panel per rendering provider, relative to the latest service date in the data (so a given
-- dataset always gives the same numbers): distinct patients in the last 365 days, and patients first
-- seen by the provider in the last 30 days.
CREATE MATERIALIZED VIEW "mv_provider_panel" AS
WITH ref AS (SELECT max("service_date") AS d FROM "claims"),
firsts AS (
  SELECT c."rendering_npi", c."patient_id", min(c."service_date") AS first_date, max(c."service_date") AS last_date
  FROM "claims" c GROUP BY c."rendering_npi", c."patient_id"
)
SELECT f."rendering_npi" AS "npi",
       count(*) FILTER (WHERE f.last_date > ref.d - 365)::int AS "last_year_patient_count",
       count(*) FILTER (WHERE f.first_date > ref.d - 30)::int AS "last_month_new_patient_count",
       count(*)::int AS "patient_count"
FROM firsts f CROSS JOIN ref
GROUP BY f."rendering_npi";
CREATE UNIQUE INDEX "mv_provider_panel_npi" ON "mv_provider_panel" ("npi");

-- Nova: envenomations and antivenom used per facility and year.
CREATE MATERIALIZED VIEW "mv_facility_snakebite" AS
SELECT s."facility_id", (extract(year FROM s."event_date"))::int AS "year",
       count(*)::int AS "cases",
       count(*) FILTER (WHERE s."antivenom" IS NOT NULL)::int AS "treated_cases",
       count(*) FILTER (WHERE s."antivenom" = 'crofab')::int AS "crofab_cases",
       count(*) FILTER (WHERE s."antivenom" = 'anavip')::int AS "anavip_cases",
       (coalesce(sum(s."units_used") FILTER (WHERE s."antivenom" = 'crofab'), 0))::int AS "crofab_units_used",
       (coalesce(sum(s."units_used") FILTER (WHERE s."antivenom" = 'anavip'), 0))::int AS "anavip_units_used"
FROM "snakebite_cases" s
GROUP BY s."facility_id", extract(year FROM s."event_date");
CREATE UNIQUE INDEX "mv_facility_snakebite_key" ON "mv_facility_snakebite" ("facility_id", "year");

-- Nova: antivenom bought per facility, year and product.
CREATE MATERIALIZED VIEW "mv_facility_antivenom_purchases" AS
SELECT a."facility_id", (extract(year FROM a."purchase_date"))::int AS "year", a."product",
       sum(a."units")::int AS "units", sum(a."amount") AS "amount"
FROM "antivenom_purchases" a
GROUP BY a."facility_id", extract(year FROM a."purchase_date"), a."product";
CREATE UNIQUE INDEX "mv_facility_antivenom_purchases_key" ON "mv_facility_antivenom_purchases" ("facility_id", "year", "product");

-- HCP PRESCRIBER DATA of the data dictionary: per prescriber and drug over the five years up to the
-- latest fill in the data.
CREATE MATERIALIZED VIEW "mv_prescriber_summaries" AS
WITH ref AS (SELECT max("fill_date") AS d FROM "pharmacy_claims")
SELECT r."prescriber_npi" AS "npi", r."drug_name", r."ndc",
       count(DISTINCT r."patient_id")::int AS "patients_5yr",
       sum(r."units") AS "units_5yr",
       count(*)::int AS "claims_5yr",
       min(r."fill_date") AS "first_fill_date",
       max(r."fill_date") AS "last_fill_date"
FROM "pharmacy_claims" r CROSS JOIN ref
WHERE r."fill_date" > (ref.d - interval '5 years')
GROUP BY r."prescriber_npi", r."drug_name", r."ndc";
CREATE INDEX "mv_prescriber_summaries_npi" ON "mv_prescriber_summaries" ("npi");
CREATE INDEX "mv_prescriber_summaries_drug" ON "mv_prescriber_summaries" ("drug_name");
