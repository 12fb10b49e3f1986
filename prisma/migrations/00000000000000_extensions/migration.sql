-- PostGIS for geography (ZIP centroids, radius search, region polygons) and pg_trgm for
-- typo-tolerant look-ups. Both must exist before any table that uses their types or operators.
CREATE EXTENSION IF NOT EXISTS postgis;
CREATE EXTENSION IF NOT EXISTS pg_trgm;
