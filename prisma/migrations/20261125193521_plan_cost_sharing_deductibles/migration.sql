-- DropIndex
DROP INDEX "plan_cost_sharing_payer_name_payer_kind_plan_name_key";

-- AlterTable
ALTER TABLE "plan_cost_sharing" ADD COLUMN     "deductible" DECIMAL(10,2) NOT NULL DEFAULT 0,
ADD COLUMN     "plan_design" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "weight" DECIMAL(8,4) NOT NULL DEFAULT 1;

-- CreateIndex
CREATE UNIQUE INDEX "plan_cost_sharing_payer_name_payer_kind_plan_name_plan_desi_key" ON "plan_cost_sharing"("payer_name", "payer_kind", "plan_name", "plan_design");

-- docs/decisions/0048: a design's weight is its enrollment share among the rows of its match key; amounts are not negative.
ALTER TABLE "plan_cost_sharing" ADD CONSTRAINT "plan_cost_sharing_amounts_check"
  CHECK ("weight" > 0 AND "deductible" >= 0 AND "copay" >= 0 AND "coinsurance" BETWEEN 0 AND 1);
