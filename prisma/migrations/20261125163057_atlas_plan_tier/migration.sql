-- CreateEnum
CREATE TYPE "PlanTier" AS ENUM ('BASE', 'BUSINESS', 'BUSINESS_PLUS', 'ENTERPRISE');

-- AlterTable
ALTER TABLE "companies" ADD COLUMN     "plan_tier" "PlanTier" NOT NULL DEFAULT 'BASE';

-- Atlas hotspots (docs/decisions/0032-atlas-hotspots.md): first-order (queen) contiguity of states and
-- counties, both directions, for Getis-Ord Gi*. Refreshed with the other aggregates after a load. Regions are
-- neighbours when their polygons meet (distance 0): ST_Touches on valid polygons, but the cartographic
-- boundaries hold a few self-intersecting rings on which ST_Touches raises a GEOS TopologyException, and
-- ST_MakeValid inside a REFRESH breaks PGlite ("cannot DROP TABLE pg_temp_..."); the distance test is robust.
CREATE MATERIALIZED VIEW "mv_region_neighbours" AS
SELECT 'STATE'::text AS "kind", x."region_id", x."neighbour_id"
FROM "states" a JOIN "states" b ON a."fips" < b."fips" AND a."geom" && b."geom"
CROSS JOIN LATERAL (VALUES (a."abbr"::text, b."abbr"::text), (b."abbr"::text, a."abbr"::text)) AS x("region_id", "neighbour_id")
WHERE ST_DWithin(a."geom", b."geom", 0)
UNION ALL
SELECT 'COUNTY'::text, x."region_id", x."neighbour_id"
FROM "counties" a JOIN "counties" b ON a."fips" < b."fips" AND a."geom" && b."geom"
CROSS JOIN LATERAL (VALUES (a."fips"::text, b."fips"::text), (b."fips"::text, a."fips"::text)) AS x("region_id", "neighbour_id")
WHERE ST_DWithin(a."geom", b."geom", 0);
CREATE UNIQUE INDEX "mv_region_neighbours_key" ON "mv_region_neighbours" ("kind", "region_id", "neighbour_id");
