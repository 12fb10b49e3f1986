-- CreateTable
CREATE TABLE "share_verifications" (
    "id" UUID NOT NULL,
    "link_id" UUID NOT NULL,
    "channel" TEXT NOT NULL,
    "contact" TEXT NOT NULL,
    "code_hash" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "verified_at" TIMESTAMPTZ(3),
    "superseded" BOOLEAN NOT NULL DEFAULT false,
    "message_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "share_verifications_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "share_verifications_link_id_channel_idx" ON "share_verifications"("link_id", "channel");

-- AddForeignKey
ALTER TABLE "share_verifications" ADD CONSTRAINT "share_verifications_link_id_fkey" FOREIGN KEY ("link_id") REFERENCES "shareable_links"("id") ON DELETE CASCADE ON UPDATE CASCADE;
