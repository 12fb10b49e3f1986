-- CreateTable
CREATE TABLE "credential_failures" (
    "scope" TEXT NOT NULL DEFAULT '',
    "endpoint" TEXT NOT NULL,
    "key_kind" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "count" INTEGER NOT NULL,
    "reset_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "credential_failures_pkey" PRIMARY KEY ("scope","endpoint","key_kind","key")
);

-- CreateTable
CREATE TABLE "credential_lines" (
    "scope" TEXT NOT NULL DEFAULT '',
    "endpoint" TEXT NOT NULL,
    "account" TEXT NOT NULL,
    "next_ticket" BIGINT NOT NULL DEFAULT 0,
    "serving" BIGINT NOT NULL DEFAULT 0,
    "turn_until" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "credential_lines_pkey" PRIMARY KEY ("scope","endpoint","account")
);

-- CreateIndex
CREATE INDEX "credential_failures_reset_at_idx" ON "credential_failures"("reset_at");
