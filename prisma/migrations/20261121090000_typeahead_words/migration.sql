-- Word search for the code look-ups (docs/decisions/0010-typeahead-word-search.md).
-- Each code's words (short and long description, the 'simple' text-search configuration: lower case, no
-- stemming, no stop words) in a generated tsvector with a GIN index, and the vocabulary of those words per
-- domain in a materialised view with a trigram index. A look-up corrects each typed word against the
-- vocabulary (a few thousand short words, not 98,186 long descriptions), then finds the codes holding every
-- word through the GIN index. Prisma does not model these columns; inserts never name them.
ALTER TABLE "icd10_codes" ADD COLUMN "search_terms" tsvector
  GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, "description" || ' ' || "long_description")) STORED;
CREATE INDEX "icd10_codes_search_terms" ON "icd10_codes" USING gin ("search_terms");

ALTER TABLE "procedure_codes" ADD COLUMN "search_terms" tsvector
  GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, "description" || ' ' || coalesce("long_description", ''))) STORED;
CREATE INDEX "procedure_codes_search_terms" ON "procedure_codes" USING gin ("search_terms");

-- The long-description trigram indexes served the previous similarity search only.
DROP INDEX IF EXISTS "icd10_codes_long_description_trgm";
DROP INDEX IF EXISTS "procedure_codes_long_description_trgm";

-- Refreshed with the other aggregates after a load, and after the icd10cm and hcpcs imports. ts_stat runs its
-- query text under the restricted search_path of materialised-view maintenance (PostgreSQL 17, PGlite), hence
-- the schema-qualified table names.
CREATE MATERIALIZED VIEW "mv_search_words" AS
  SELECT 'icd10'::text AS "domain", "word", "ndoc" AS "documents" FROM ts_stat('SELECT search_terms FROM public.icd10_codes')
  UNION ALL
  SELECT 'procedure'::text, "word", "ndoc" FROM ts_stat('SELECT search_terms FROM public.procedure_codes');
CREATE UNIQUE INDEX "mv_search_words_key" ON "mv_search_words" ("domain", "word" text_pattern_ops);
CREATE INDEX "mv_search_words_trgm" ON "mv_search_words" USING gin ("word" gin_trgm_ops);
