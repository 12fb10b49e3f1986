-- CreateTable
CREATE TABLE "states" (
    "fips" CHAR(2) NOT NULL,
    "abbr" CHAR(2) NOT NULL,
    "name" TEXT NOT NULL,
    "region" TEXT,
    "division" TEXT,
    "population" INTEGER,
    "geom" geometry(MultiPolygon, 4326),

    CONSTRAINT "states_pkey" PRIMARY KEY ("fips")
);

-- CreateTable
CREATE TABLE "counties" (
    "fips" CHAR(5) NOT NULL,
    "state_fips" CHAR(2) NOT NULL,
    "name" TEXT NOT NULL,
    "population" INTEGER,
    "latitude" DOUBLE PRECISION,
    "longitude" DOUBLE PRECISION,
    "geom" geometry(MultiPolygon, 4326),

    CONSTRAINT "counties_pkey" PRIMARY KEY ("fips")
);

-- CreateTable
CREATE TABLE "zips" (
    "zip" CHAR(5) NOT NULL,
    "city" TEXT NOT NULL,
    "state_fips" CHAR(2) NOT NULL,
    "state" CHAR(2) NOT NULL,
    "county_fips" CHAR(5),
    "county_name" TEXT,
    "latitude" DOUBLE PRECISION NOT NULL,
    "longitude" DOUBLE PRECISION NOT NULL,
    "is_zcta" BOOLEAN NOT NULL DEFAULT true,
    "geog" geography(Point, 4326),

    CONSTRAINT "zips_pkey" PRIMARY KEY ("zip")
);

-- CreateTable
CREATE TABLE "sales_territories" (
    "id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "state" CHAR(2) NOT NULL,
    "nova_use_case" TEXT NOT NULL DEFAULT 'serb_crofab',

    CONSTRAINT "sales_territories_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sales_territory_counties" (
    "territory_id" INTEGER NOT NULL,
    "county_fips" CHAR(5) NOT NULL,

    CONSTRAINT "sales_territory_counties_pkey" PRIMARY KEY ("territory_id","county_fips")
);

-- CreateTable
CREATE TABLE "icd10_codes" (
    "code" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "long_description" TEXT NOT NULL,
    "parent_code" TEXT,
    "billable" BOOLEAN NOT NULL,
    "order_number" INTEGER,
    "source" TEXT NOT NULL DEFAULT 'starter',
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "icd10_codes_pkey" PRIMARY KEY ("code")
);

-- CreateTable
CREATE TABLE "procedure_codes" (
    "code" TEXT NOT NULL,
    "code_system" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "long_description" TEXT,
    "category" TEXT,
    "base_price" DECIMAL(12,2),
    "termination_date" DATE,
    "source" TEXT NOT NULL DEFAULT 'starter',
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "procedure_codes_pkey" PRIMARY KEY ("code")
);

-- CreateTable
CREATE TABLE "shoppable_procedures" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "cpt_codes" TEXT[],
    "description" TEXT NOT NULL,

    CONSTRAINT "shoppable_procedures_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "specialties" (
    "code" CHAR(10) NOT NULL,
    "grouping" TEXT NOT NULL,
    "classification" TEXT NOT NULL,
    "specialization" TEXT,
    "display_name" TEXT NOT NULL,
    "definition" TEXT,
    "section" TEXT,
    "provider_kind" TEXT,
    "source" TEXT NOT NULL DEFAULT 'starter',
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "specialties_pkey" PRIMARY KEY ("code")
);

-- CreateTable
CREATE TABLE "insurers" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "parent" TEXT,
    "kind" TEXT NOT NULL,
    "states" TEXT[],

    CONSTRAINT "insurers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "health_systems" (
    "id" INTEGER NOT NULL,
    "healthsystem_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "control_type" TEXT NOT NULL DEFAULT 'Private',
    "state" CHAR(2),
    "city" TEXT,
    "website_domain" TEXT,
    "phone_number" TEXT,

    CONSTRAINT "health_systems_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "facilities" (
    "id" SERIAL NOT NULL,
    "npi" CHAR(10),
    "ccn" VARCHAR(6),
    "name" TEXT NOT NULL,
    "facility_type" TEXT NOT NULL,
    "hco_compile_level_1" TEXT NOT NULL,
    "taxonomy_code" CHAR(10),
    "health_system_id" INTEGER,
    "address_line_1" TEXT NOT NULL,
    "city" TEXT NOT NULL,
    "state" CHAR(2) NOT NULL,
    "zip_code" CHAR(5) NOT NULL,
    "county_fips" CHAR(5),
    "latitude" DOUBLE PRECISION NOT NULL,
    "longitude" DOUBLE PRECISION NOT NULL,
    "geog" geography(Point, 4326),
    "phone_number" TEXT,
    "bed_count" INTEGER,
    "emergency_services" BOOLEAN NOT NULL DEFAULT false,
    "overall_rating" INTEGER,
    "ownership" TEXT,
    "source" TEXT NOT NULL DEFAULT 'synthetic',
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "facilities_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "providers" (
    "id" SERIAL NOT NULL,
    "npi" CHAR(10) NOT NULL,
    "first_name" TEXT NOT NULL,
    "middle_name" TEXT,
    "last_name" TEXT NOT NULL,
    "full_name" TEXT NOT NULL,
    "title" TEXT,
    "provider_kind" TEXT NOT NULL,
    "primary_taxonomy_code" CHAR(10) NOT NULL,
    "cms_specialization" TEXT NOT NULL,
    "gender" CHAR(1),
    "age" INTEGER,
    "years_in_practice" INTEGER,
    "medical_school" TEXT,
    "phone_number" TEXT,
    "website" TEXT,
    "address" TEXT NOT NULL,
    "city" TEXT NOT NULL,
    "state" CHAR(2) NOT NULL,
    "zip_code" CHAR(5) NOT NULL,
    "county_fips" CHAR(5),
    "latitude" DOUBLE PRECISION NOT NULL,
    "longitude" DOUBLE PRECISION NOT NULL,
    "geog" geography(Point, 4326),
    "facility_id" INTEGER,
    "accepting_new_patients" BOOLEAN NOT NULL DEFAULT true,
    "aggregated_insurance_networks_v1" JSONB NOT NULL DEFAULT '{}',
    "last_verified_at" DATE NOT NULL,
    "confidence" DECIMAL(3,2) NOT NULL,
    "source" TEXT NOT NULL DEFAULT 'synthetic',
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "providers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "patients" (
    "id" BIGINT NOT NULL,
    "age" INTEGER NOT NULL,
    "birth_year" INTEGER NOT NULL,
    "gender" CHAR(1) NOT NULL,
    "zip_code" CHAR(5) NOT NULL,
    "state" CHAR(2) NOT NULL,
    "county_fips" CHAR(5),
    "payer_type" TEXT NOT NULL,
    "insurer_name" TEXT,

    CONSTRAINT "patients_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "claims" (
    "id" BIGINT NOT NULL,
    "patient_id" BIGINT NOT NULL,
    "service_date" DATE NOT NULL,
    "rendering_npi" CHAR(10) NOT NULL,
    "facility_id" INTEGER,
    "facility_npi" CHAR(10),
    "payer_type" TEXT NOT NULL,
    "insurer_name" TEXT,
    "place_of_service" TEXT NOT NULL,
    "list_amount" DECIMAL(12,2) NOT NULL,
    "negotiated_amount" DECIMAL(12,2) NOT NULL,
    "insurer_amount" DECIMAL(12,2) NOT NULL,
    "patient_amount" DECIMAL(12,2) NOT NULL,

    CONSTRAINT "claims_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "claim_diagnoses" (
    "claim_id" BIGINT NOT NULL,
    "sequence" INTEGER NOT NULL,
    "icd10_code" TEXT NOT NULL,

    CONSTRAINT "claim_diagnoses_pkey" PRIMARY KEY ("claim_id","sequence")
);

-- CreateTable
CREATE TABLE "claim_procedures" (
    "claim_id" BIGINT NOT NULL,
    "line_number" INTEGER NOT NULL,
    "procedure_code" TEXT NOT NULL,
    "units" INTEGER NOT NULL DEFAULT 1,
    "list_amount" DECIMAL(12,2) NOT NULL,
    "negotiated_amount" DECIMAL(12,2) NOT NULL,
    "insurer_amount" DECIMAL(12,2) NOT NULL,
    "patient_amount" DECIMAL(12,2) NOT NULL,

    CONSTRAINT "claim_procedures_pkey" PRIMARY KEY ("claim_id","line_number")
);

-- CreateTable
CREATE TABLE "pharmacy_claims" (
    "id" BIGINT NOT NULL,
    "patient_id" BIGINT NOT NULL,
    "fill_date" DATE NOT NULL,
    "prescriber_npi" CHAR(10) NOT NULL,
    "facility_npi" CHAR(10),
    "ndc" VARCHAR(13) NOT NULL,
    "drug_name" TEXT NOT NULL,
    "units" DECIMAL(10,2) NOT NULL,
    "days_supply" INTEGER,
    "payer_type" TEXT NOT NULL,
    "insurer_name" TEXT,
    "list_amount" DECIMAL(12,2) NOT NULL,
    "negotiated_amount" DECIMAL(12,2) NOT NULL,
    "insurer_amount" DECIMAL(12,2) NOT NULL,
    "patient_amount" DECIMAL(12,2) NOT NULL,

    CONSTRAINT "pharmacy_claims_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "facility_prices" (
    "id" BIGSERIAL NOT NULL,
    "facility_id" INTEGER NOT NULL,
    "procedure_code" TEXT NOT NULL,
    "code_type" TEXT NOT NULL DEFAULT 'CPT',
    "description" TEXT NOT NULL,
    "setting" TEXT NOT NULL,
    "payer_name" TEXT NOT NULL DEFAULT '',
    "plan_name" TEXT NOT NULL DEFAULT '',
    "gross_charge" DECIMAL(14,2),
    "discounted_cash" DECIMAL(14,2),
    "negotiated_dollar" DECIMAL(14,2),
    "negotiated_percentage" DECIMAL(9,3),
    "negotiated_algorithm" TEXT,
    "methodology" TEXT,
    "median_amount" DECIMAL(14,2),
    "p10_amount" DECIMAL(14,2),
    "p90_amount" DECIMAL(14,2),
    "source" TEXT NOT NULL DEFAULT 'synthetic',
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "facility_prices_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "snakebite_cases" (
    "id" INTEGER NOT NULL,
    "patient_id" BIGINT NOT NULL,
    "claim_id" BIGINT NOT NULL,
    "facility_id" INTEGER NOT NULL,
    "provider_npi" CHAR(10) NOT NULL,
    "event_date" DATE NOT NULL,
    "state" CHAR(2) NOT NULL,
    "county_fips" CHAR(5),
    "zip_code" CHAR(5) NOT NULL,
    "icd10_code" TEXT NOT NULL,
    "antivenom" TEXT,
    "units_used" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "snakebite_cases_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "antivenom_purchases" (
    "id" INTEGER NOT NULL,
    "facility_id" INTEGER NOT NULL,
    "product" TEXT NOT NULL,
    "ndc" VARCHAR(13) NOT NULL,
    "purchase_date" DATE NOT NULL,
    "units" INTEGER NOT NULL,
    "amount" DECIMAL(12,2) NOT NULL,

    CONSTRAINT "antivenom_purchases_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "data_loads" (
    "id" SERIAL NOT NULL,
    "kind" TEXT NOT NULL,
    "scale" TEXT NOT NULL,
    "seed" INTEGER,
    "source_file" TEXT,
    "status" TEXT NOT NULL DEFAULT 'running',
    "counts" JSONB NOT NULL DEFAULT '{}',
    "error" TEXT,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "data_loads_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "states_abbr_key" ON "states"("abbr");

-- CreateIndex
CREATE INDEX "counties_state_fips_idx" ON "counties"("state_fips");

-- CreateIndex
CREATE INDEX "zips_state_idx" ON "zips"("state");

-- CreateIndex
CREATE INDEX "zips_county_fips_idx" ON "zips"("county_fips");

-- CreateIndex
CREATE UNIQUE INDEX "sales_territories_name_key" ON "sales_territories"("name");

-- CreateIndex
CREATE INDEX "sales_territory_counties_county_fips_idx" ON "sales_territory_counties"("county_fips");

-- CreateIndex
CREATE INDEX "icd10_codes_parent_code_idx" ON "icd10_codes"("parent_code");

-- CreateIndex
CREATE UNIQUE INDEX "shoppable_procedures_name_key" ON "shoppable_procedures"("name");

-- CreateIndex
CREATE INDEX "specialties_classification_idx" ON "specialties"("classification");

-- CreateIndex
CREATE UNIQUE INDEX "insurers_name_key" ON "insurers"("name");

-- CreateIndex
CREATE UNIQUE INDEX "health_systems_healthsystem_id_key" ON "health_systems"("healthsystem_id");

-- CreateIndex
CREATE INDEX "health_systems_state_idx" ON "health_systems"("state");

-- CreateIndex
CREATE UNIQUE INDEX "facilities_npi_key" ON "facilities"("npi");

-- CreateIndex
CREATE UNIQUE INDEX "facilities_ccn_key" ON "facilities"("ccn");

-- CreateIndex
CREATE INDEX "facilities_health_system_id_idx" ON "facilities"("health_system_id");

-- CreateIndex
CREATE INDEX "facilities_state_idx" ON "facilities"("state");

-- CreateIndex
CREATE INDEX "facilities_zip_code_idx" ON "facilities"("zip_code");

-- CreateIndex
CREATE INDEX "facilities_county_fips_idx" ON "facilities"("county_fips");

-- CreateIndex
CREATE UNIQUE INDEX "providers_npi_key" ON "providers"("npi");

-- CreateIndex
CREATE INDEX "providers_primary_taxonomy_code_state_idx" ON "providers"("primary_taxonomy_code", "state");

-- CreateIndex
CREATE INDEX "providers_state_zip_code_idx" ON "providers"("state", "zip_code");

-- CreateIndex
CREATE INDEX "providers_facility_id_idx" ON "providers"("facility_id");

-- CreateIndex
CREATE INDEX "providers_last_name_first_name_idx" ON "providers"("last_name", "first_name");

-- CreateIndex
CREATE INDEX "patients_state_idx" ON "patients"("state");

-- CreateIndex
CREATE INDEX "patients_zip_code_idx" ON "patients"("zip_code");

-- CreateIndex
CREATE INDEX "patients_county_fips_idx" ON "patients"("county_fips");

-- CreateIndex
CREATE INDEX "claims_patient_id_idx" ON "claims"("patient_id");

-- CreateIndex
CREATE INDEX "claims_rendering_npi_service_date_idx" ON "claims"("rendering_npi", "service_date");

-- CreateIndex
CREATE INDEX "claims_facility_id_service_date_idx" ON "claims"("facility_id", "service_date");

-- CreateIndex
CREATE INDEX "claim_procedures_procedure_code_idx" ON "claim_procedures"("procedure_code");

-- CreateIndex
CREATE INDEX "pharmacy_claims_patient_id_idx" ON "pharmacy_claims"("patient_id");

-- CreateIndex
CREATE INDEX "pharmacy_claims_ndc_fill_date_idx" ON "pharmacy_claims"("ndc", "fill_date");

-- CreateIndex
CREATE INDEX "pharmacy_claims_prescriber_npi_idx" ON "pharmacy_claims"("prescriber_npi");

-- CreateIndex
CREATE INDEX "facility_prices_procedure_code_payer_name_idx" ON "facility_prices"("procedure_code", "payer_name");

-- CreateIndex
CREATE UNIQUE INDEX "facility_prices_facility_id_procedure_code_setting_payer_na_key" ON "facility_prices"("facility_id", "procedure_code", "setting", "payer_name", "plan_name");

-- CreateIndex
CREATE INDEX "snakebite_cases_facility_id_event_date_idx" ON "snakebite_cases"("facility_id", "event_date");

-- CreateIndex
CREATE INDEX "snakebite_cases_county_fips_idx" ON "snakebite_cases"("county_fips");

-- CreateIndex
CREATE INDEX "snakebite_cases_provider_npi_idx" ON "snakebite_cases"("provider_npi");

-- CreateIndex
CREATE INDEX "antivenom_purchases_facility_id_product_purchase_date_idx" ON "antivenom_purchases"("facility_id", "product", "purchase_date");

-- CreateIndex
CREATE INDEX "data_loads_kind_status_finished_at_idx" ON "data_loads"("kind", "status", "finished_at");

-- AddForeignKey
ALTER TABLE "counties" ADD CONSTRAINT "counties_state_fips_fkey" FOREIGN KEY ("state_fips") REFERENCES "states"("fips") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "zips" ADD CONSTRAINT "zips_state_fips_fkey" FOREIGN KEY ("state_fips") REFERENCES "states"("fips") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "zips" ADD CONSTRAINT "zips_county_fips_fkey" FOREIGN KEY ("county_fips") REFERENCES "counties"("fips") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sales_territory_counties" ADD CONSTRAINT "sales_territory_counties_territory_id_fkey" FOREIGN KEY ("territory_id") REFERENCES "sales_territories"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sales_territory_counties" ADD CONSTRAINT "sales_territory_counties_county_fips_fkey" FOREIGN KEY ("county_fips") REFERENCES "counties"("fips") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "facilities" ADD CONSTRAINT "facilities_health_system_id_fkey" FOREIGN KEY ("health_system_id") REFERENCES "health_systems"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "providers" ADD CONSTRAINT "providers_facility_id_fkey" FOREIGN KEY ("facility_id") REFERENCES "facilities"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "claims" ADD CONSTRAINT "claims_patient_id_fkey" FOREIGN KEY ("patient_id") REFERENCES "patients"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "claims" ADD CONSTRAINT "claims_facility_id_fkey" FOREIGN KEY ("facility_id") REFERENCES "facilities"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "claim_diagnoses" ADD CONSTRAINT "claim_diagnoses_claim_id_fkey" FOREIGN KEY ("claim_id") REFERENCES "claims"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "claim_procedures" ADD CONSTRAINT "claim_procedures_claim_id_fkey" FOREIGN KEY ("claim_id") REFERENCES "claims"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "pharmacy_claims" ADD CONSTRAINT "pharmacy_claims_patient_id_fkey" FOREIGN KEY ("patient_id") REFERENCES "patients"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "facility_prices" ADD CONSTRAINT "facility_prices_facility_id_fkey" FOREIGN KEY ("facility_id") REFERENCES "facilities"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "snakebite_cases" ADD CONSTRAINT "snakebite_cases_patient_id_fkey" FOREIGN KEY ("patient_id") REFERENCES "patients"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "snakebite_cases" ADD CONSTRAINT "snakebite_cases_facility_id_fkey" FOREIGN KEY ("facility_id") REFERENCES "facilities"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "antivenom_purchases" ADD CONSTRAINT "antivenom_purchases_facility_id_fkey" FOREIGN KEY ("facility_id") REFERENCES "facilities"("id") ON DELETE CASCADE ON UPDATE CASCADE;
