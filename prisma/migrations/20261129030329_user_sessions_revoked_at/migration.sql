-- AlterTable
ALTER TABLE "users" ADD COLUMN     "sessions_revoked_at" TIMESTAMPTZ(3);
