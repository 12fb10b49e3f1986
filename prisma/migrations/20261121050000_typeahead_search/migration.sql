-- Typeahead look-ups (docs/decisions/0009-data-platform.md). Rows inserted into a GIN index with the default
-- fastupdate = on wait in the index's pending list, which every trigram look-up scans in full until a vacuum
-- merges it; with autovacuum off (PGlite, the reference server) nothing ever does (all 6,806 HCPCS codes and
-- ~3,300 pages of ICD-10-CM entries were pending: several ms per bitmap scan). fastupdate stays on, because
-- it makes bulk loads fast; the loader and the importers merge the pending lists when a load finishes
-- (apps/server/src/data/refresh.ts, mergePendingIndexEntries). This merges whatever is pending now.
SELECT gin_clean_pending_list(i::regclass) FROM unnest(ARRAY[
  'specialties_display_name_trgm', 'icd10_codes_description_trgm', 'icd10_codes_long_description_trgm',
  'procedure_codes_description_trgm', 'procedure_codes_long_description_trgm', 'shoppable_procedures_name_trgm',
  'shoppable_procedures_cpt_codes']) AS i;
