-- The FHIR provider directory (/fhir, docs/fhir.md). Its searches page by keyset (id order), so a filter needs an
-- index that yields its rows in id order, and its string parameters match name prefixes case-insensitively.
-- PractitionerRole?specialty= page after page: the specialty's rows in id order.
CREATE INDEX "providers_taxonomy_id" ON "providers" ("primary_taxonomy_code", "id");
-- Practitioner?family= / ?name= and PractitionerRole?practitioner.name=: lower(name) LIKE 'prefix%'.
CREATE INDEX "providers_last_name_prefix" ON "providers" ((lower("last_name")) text_pattern_ops);
CREATE INDEX "providers_first_name_prefix" ON "providers" ((lower("first_name")) text_pattern_ops);
