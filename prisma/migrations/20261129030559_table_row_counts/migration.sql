-- CreateTable
CREATE TABLE "table_row_counts" (
    "table_name" TEXT NOT NULL,
    "row_count" BIGINT NOT NULL,
    "is_estimate" BOOLEAN NOT NULL,
    "data_load_id" INTEGER NOT NULL,
    "counted_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "table_row_counts_pkey" PRIMARY KEY ("table_name")
);
