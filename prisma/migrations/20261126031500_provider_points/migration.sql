-- The cost page's peer search (docs/decisions/0056): every provider's taxonomy, point and NPI, stored by taxonomy
-- and a quarter-degree grid cell, so that the candidates of a metro (the same taxonomy in a latitude/longitude
-- box around the 50 km circle, ~2,000 in a dense one) share a few dozen pages instead of one page each of the
-- 4 GB providers table, whose rows lie in generation order. The geography point is not copied: the query builds
-- it from latitude and longitude with the providers' own GENERATED expression, for the few hundred that a
-- great-circle pre-cut keeps. Refreshed with the other views by every seed, and after an NPPES import.
CREATE MATERIALIZED VIEW "mv_provider_points" AS
SELECT p."primary_taxonomy_code", p."latitude", p."longitude", p."npi"
FROM "providers" p
ORDER BY p."primary_taxonomy_code", floor(p."latitude" * 4), floor(p."longitude" * 4), p."latitude", p."longitude";
CREATE INDEX "mv_provider_points_search" ON "mv_provider_points" ("primary_taxonomy_code", "latitude", "longitude");
ANALYZE "mv_provider_points";
