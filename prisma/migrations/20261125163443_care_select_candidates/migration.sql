-- CreateIndex
CREATE INDEX "providers_primary_taxonomy_code_latitude_longitude_idx" ON "providers"("primary_taxonomy_code", "latitude", "longitude");
