-- AlterTable
ALTER TABLE "onboarding_invitations" ADD COLUMN     "expires_at" TIMESTAMPTZ(3),
ADD COLUMN     "token_hash" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "onboarding_invitations_token_hash_key" ON "onboarding_invitations"("token_hash");
