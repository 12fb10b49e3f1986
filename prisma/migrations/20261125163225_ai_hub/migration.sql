-- CreateTable
CREATE TABLE "ai_documents" (
    "id" UUID NOT NULL,
    "user_id" INTEGER NOT NULL,
    "company_id" INTEGER NOT NULL,
    "title" TEXT NOT NULL,
    "filename" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "tokens" INTEGER NOT NULL,
    "page_count" INTEGER NOT NULL,
    "tags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "uploaded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ai_documents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ai_document_pages" (
    "document_id" UUID NOT NULL,
    "page_number" INTEGER NOT NULL,
    "text" TEXT NOT NULL,
    "tokens" INTEGER NOT NULL,

    CONSTRAINT "ai_document_pages_pkey" PRIMARY KEY ("document_id","page_number")
);

-- CreateTable
CREATE TABLE "ai_pins" (
    "id" UUID NOT NULL,
    "user_id" INTEGER NOT NULL,
    "company_id" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "entity_key" TEXT NOT NULL,
    "source" "ProductGroup" NOT NULL,
    "display_name" TEXT NOT NULL,
    "data" JSONB NOT NULL,
    "position" INTEGER NOT NULL,
    "pinned_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ai_pins_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ai_template_uses" (
    "user_id" INTEGER NOT NULL,
    "template_id" TEXT NOT NULL,
    "uses" INTEGER NOT NULL DEFAULT 0,
    "last_used_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ai_template_uses_pkey" PRIMARY KEY ("user_id","template_id")
);

-- CreateIndex
CREATE INDEX "ai_documents_user_id_uploaded_at_idx" ON "ai_documents"("user_id", "uploaded_at");

-- CreateIndex
CREATE INDEX "ai_documents_company_id_idx" ON "ai_documents"("company_id");

-- CreateIndex
CREATE INDEX "ai_pins_user_id_position_idx" ON "ai_pins"("user_id", "position");

-- CreateIndex
CREATE INDEX "ai_pins_company_id_idx" ON "ai_pins"("company_id");

-- CreateIndex
CREATE UNIQUE INDEX "ai_pins_user_id_type_entity_key_key" ON "ai_pins"("user_id", "type", "entity_key");

-- AddForeignKey
ALTER TABLE "ai_document_pages" ADD CONSTRAINT "ai_document_pages_document_id_fkey" FOREIGN KEY ("document_id") REFERENCES "ai_documents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Hand-written (docs/decisions/0042-ai-hub.md): the owners' foreign keys, kept out of the Prisma models so
-- that the account models stay as they are. A removed user or company takes its AI Hub context with it.
ALTER TABLE "ai_documents" ADD CONSTRAINT "ai_documents_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "ai_documents" ADD CONSTRAINT "ai_documents_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "ai_pins" ADD CONSTRAINT "ai_pins_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "ai_pins" ADD CONSTRAINT "ai_pins_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "ai_template_uses" ADD CONSTRAINT "ai_template_uses_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Full-text search of the offline analyst's retrieval: each page's words with English stemming in a generated
-- tsvector with a GIN index (fastupdate off: pages arrive a few at a time, and PGlite never vacuums the
-- pending list). Prisma does not model the column; inserts never name it.
ALTER TABLE "ai_document_pages" ADD COLUMN "search" tsvector
  GENERATED ALWAYS AS (to_tsvector('english'::regconfig, "text")) STORED;
CREATE INDEX "ai_document_pages_search" ON "ai_document_pages" USING gin ("search") WITH (fastupdate = off);
