-- AlterTable
ALTER TABLE "message_outbox" ADD COLUMN     "scope" TEXT;
