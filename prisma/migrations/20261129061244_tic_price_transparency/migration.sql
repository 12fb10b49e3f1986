-- CreateTable
CREATE TABLE "tic_files" (
    "id" SERIAL NOT NULL,
    "digest" CHAR(64) NOT NULL,
    "source" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "payer_name" TEXT NOT NULL,
    "reporting_entity_name" TEXT NOT NULL,
    "reporting_entity_type" TEXT NOT NULL,
    "plan_name" TEXT NOT NULL DEFAULT '',
    "plan_id" TEXT,
    "plan_id_type" TEXT,
    "plan_market_type" TEXT,
    "issuer_name" TEXT,
    "plan_sponsor_name" TEXT,
    "last_updated_on" DATE NOT NULL,
    "version" TEXT NOT NULL,
    "bytes" BIGINT NOT NULL,
    "data_load_id" INTEGER,
    "counts" JSONB NOT NULL DEFAULT '{}',
    "imported_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tic_files_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tic_provider_groups" (
    "id" BIGSERIAL NOT NULL,
    "file_id" INTEGER NOT NULL,
    "group_id" BIGINT NOT NULL,
    "npi" CHAR(10),
    "tin_type" TEXT NOT NULL,
    "tin" TEXT NOT NULL,
    "business_name" TEXT,
    "network_names" TEXT[],

    CONSTRAINT "tic_provider_groups_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tic_rates" (
    "id" BIGSERIAL NOT NULL,
    "file_id" INTEGER NOT NULL,
    "npi" CHAR(10),
    "tin_type" TEXT NOT NULL,
    "tin" TEXT NOT NULL,
    "provider_matched" BOOLEAN NOT NULL DEFAULT false,
    "billing_code_type" TEXT NOT NULL,
    "billing_code_type_version" TEXT NOT NULL,
    "billing_code" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "negotiation_arrangement" TEXT NOT NULL,
    "contained_codes" TEXT[],
    "negotiated_type" TEXT NOT NULL,
    "negotiated_rate" DECIMAL(16,4) NOT NULL,
    "setting" TEXT NOT NULL,
    "billing_class" TEXT NOT NULL,
    "service_codes" TEXT[],
    "billing_code_modifiers" TEXT[],
    "expiration_date" DATE NOT NULL,
    "additional_information" TEXT,

    CONSTRAINT "tic_rates_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tic_allowed_amounts" (
    "id" BIGSERIAL NOT NULL,
    "file_id" INTEGER NOT NULL,
    "npi" CHAR(10),
    "tin_type" TEXT NOT NULL,
    "tin" TEXT NOT NULL,
    "provider_matched" BOOLEAN NOT NULL DEFAULT false,
    "billing_code_type" TEXT NOT NULL,
    "billing_code_type_version" TEXT NOT NULL,
    "billing_code" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "setting" TEXT,
    "billing_class" TEXT NOT NULL,
    "service_codes" TEXT[],
    "billing_code_modifiers" TEXT[],
    "allowed_amount" DECIMAL(16,4) NOT NULL,
    "billed_charge" DECIMAL(16,4) NOT NULL,

    CONSTRAINT "tic_allowed_amounts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "tic_files_digest_key" ON "tic_files"("digest");

-- CreateIndex
CREATE INDEX "tic_files_source_idx" ON "tic_files"("source");

-- CreateIndex
CREATE INDEX "tic_provider_groups_file_id_group_id_idx" ON "tic_provider_groups"("file_id", "group_id");

-- CreateIndex
CREATE INDEX "tic_provider_groups_npi_idx" ON "tic_provider_groups"("npi");

-- CreateIndex
CREATE INDEX "tic_rates_npi_billing_code_idx" ON "tic_rates"("npi", "billing_code");

-- CreateIndex
CREATE INDEX "tic_rates_tin_billing_code_idx" ON "tic_rates"("tin", "billing_code");

-- CreateIndex
CREATE INDEX "tic_rates_file_id_idx" ON "tic_rates"("file_id");

-- CreateIndex
CREATE INDEX "tic_allowed_amounts_npi_billing_code_idx" ON "tic_allowed_amounts"("npi", "billing_code");

-- CreateIndex
CREATE INDEX "tic_allowed_amounts_file_id_idx" ON "tic_allowed_amounts"("file_id");

-- AddForeignKey
ALTER TABLE "tic_provider_groups" ADD CONSTRAINT "tic_provider_groups_file_id_fkey" FOREIGN KEY ("file_id") REFERENCES "tic_files"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tic_rates" ADD CONSTRAINT "tic_rates_file_id_fkey" FOREIGN KEY ("file_id") REFERENCES "tic_files"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tic_allowed_amounts" ADD CONSTRAINT "tic_allowed_amounts_file_id_fkey" FOREIGN KEY ("file_id") REFERENCES "tic_files"("id") ON DELETE CASCADE ON UPDATE CASCADE;
