-- Typeahead look-ups (docs/decisions/0009-data-platform.md). The trigram GIN indexes were built with the
-- default fastupdate = on: rows loaded after CREATE INDEX (every seed and import) sit in the index's
-- pending list, which every look-up then scans in full (with autovacuum off, as on PGlite and on the
-- reference server, nothing ever merges it: all 6,806 HCPCS codes and ~3,300 ICD-10-CM pages' worth of
-- entries were pending, several ms per bitmap scan). These reference tables change only on a load or an
-- import, so insert straight into the index and merge whatever is pending now.
ALTER INDEX "specialties_display_name_trgm" SET (fastupdate = off);
ALTER INDEX "icd10_codes_description_trgm" SET (fastupdate = off);
ALTER INDEX "icd10_codes_long_description_trgm" SET (fastupdate = off);
ALTER INDEX "procedure_codes_description_trgm" SET (fastupdate = off);
ALTER INDEX "procedure_codes_long_description_trgm" SET (fastupdate = off);
ALTER INDEX "shoppable_procedures_name_trgm" SET (fastupdate = off);
ALTER INDEX "shoppable_procedures_cpt_codes" SET (fastupdate = off);
SELECT gin_clean_pending_list(i::regclass) FROM unnest(ARRAY[
  'specialties_display_name_trgm', 'icd10_codes_description_trgm', 'icd10_codes_long_description_trgm',
  'procedure_codes_description_trgm', 'procedure_codes_long_description_trgm', 'shoppable_procedures_name_trgm',
  'shoppable_procedures_cpt_codes']) AS i;
