-- Price Check's candidates (docs/decisions/0065): every (procedure code, facility) that a price list lists, with
-- the facility's latitude and longitude, stored by code and a quarter-degree grid cell. A search finds the
-- facilities that list its first code in the radius's latitude/longitude box with one range scan of the
-- (procedure_code, latitude, longitude) index, instead of probing the price list of every facility in the box
-- (604 probes on average, 2,484 in a dense metro). The exact spheroid test and distance still run on the
-- facilities' own points. The codes are read per facility from the price list's unique index (facility, code, ...):
-- a DISTINCT over the whole table is planned as a hash aggregate that, spilling at the default work_mem, took
-- 349 s at the full scale (543,050 batches) against 3 s this way. Refreshed with the other views by every seed,
-- and after a price or hospital import.
CREATE MATERIALIZED VIEW "mv_price_code_points" AS
SELECT c."procedure_code", f."latitude", f."longitude", f."id" AS "facility_id"
FROM "facilities" f
CROSS JOIN LATERAL (SELECT DISTINCT fp."procedure_code" FROM "facility_prices" fp WHERE fp."facility_id" = f."id") c
WHERE f."latitude" IS NOT NULL AND f."longitude" IS NOT NULL
ORDER BY c."procedure_code", floor(f."latitude" * 4), floor(f."longitude" * 4), f."latitude", f."longitude", f."id";
CREATE INDEX "mv_price_code_points_search" ON "mv_price_code_points" ("procedure_code", "latitude", "longitude") INCLUDE ("facility_id");
ANALYZE "mv_price_code_points";
