-- CreateTable
CREATE TABLE "plan_cost_sharing" (
    "id" SERIAL NOT NULL,
    "payer_name" TEXT NOT NULL DEFAULT '',
    "payer_kind" TEXT NOT NULL DEFAULT '',
    "plan_name" TEXT NOT NULL DEFAULT '',
    "coinsurance" DECIMAL(5,4) NOT NULL,
    "copay" DECIMAL(10,2) NOT NULL DEFAULT 0,
    "source" TEXT NOT NULL DEFAULT 'default',

    CONSTRAINT "plan_cost_sharing_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "plan_cost_sharing_payer_name_payer_kind_plan_name_key" ON "plan_cost_sharing"("payer_name", "payer_kind", "plan_name");

-- Default cost sharing (docs/decisions/0028): typical in-network coinsurance by plan type (KFF Employer
-- Health Benefits Survey: about 20% for PPO/POS hospital and outpatient services, less in HMOs), Medicare
-- Part B's 20% coinsurance, Medicaid's nominal copay and TRICARE's low cost sharing. Rows with a payer_name
-- (data, or an operator) override these.
INSERT INTO "plan_cost_sharing" ("payer_name", "payer_kind", "plan_name", "coinsurance", "copay", "source") VALUES
  ('', '', '', 0.2000, 0, 'default'),
  ('', '', 'PPO', 0.2000, 0, 'default'),
  ('', '', 'POS', 0.2000, 0, 'default'),
  ('', '', 'EPO', 0.1500, 0, 'default'),
  ('', '', 'HMO', 0.1000, 0, 'default'),
  ('', 'medicare', '', 0.2000, 0, 'default'),
  ('', 'medicaid', '', 0.0000, 4.00, 'default'),
  ('', 'military', '', 0.0500, 0, 'default');
