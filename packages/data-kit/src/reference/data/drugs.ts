// Maintenance drugs of the chronic conditions the generator calibrates (generator/calibration.ts CONDITIONS),
// for the pharmacy lines (PHARMX CLAIMS). Each NDC is a real package NDC of the brand labeler, written in the
// 11-digit 5-4-2 form claims use. We checked each one against the package the labeler lists for it: the FDA
// NDC Directory and DailyMed package listings, and the 5-4-2 codes that pharmacy data sets quote for the same
// package (see seed/ATTRIBUTION.md). Package sizes are those of the listed package. The list prices are
// synthetic: round figures of the order of the published list price of a 30-day supply. The generator prices
// fills with them; they are not quotations.

export interface MaintenanceDrug {
  key: string
  brand_name: string
  generic_name: string
  strength: string
  manufacturer: string
  /** Package NDC, 11-digit 5-4-2 form. */
  ndc: string
  /** The listed package, in dispensing units. */
  package: string
  /** Dispensing units in a 30-day supply (tablets, inhalers, vials, pens). */
  units_per_30_days: number
  /** Days a fill lasts: 90-day mail-order supplies for maintenance drugs, 28 days for the biologic pen. */
  days_per_fill: 28 | 30 | 90
  /** Synthetic list price of a 30-day supply, US dollars. */
  list_price_30_days: number
  /** A generic product (ANDA, or the brand's authorized generic) rather than the brand. */
  generic?: boolean
  /** Keys of the generic equivalents of a brand (a pharmacy substitutes one of them for most fills). */
  generics?: readonly string[]
  /** Youngest labelled (or customary) patient age; no fills below it. */
  min_age: number
}

export const MAINTENANCE_DRUGS: readonly MaintenanceDrug[] = [
  { key: 'januvia', brand_name: 'Januvia', generic_name: 'sitagliptin', strength: '100 mg tablet', manufacturer: 'Merck Sharp & Dohme', ndc: '00006-0277-31', package: '30 tablets', units_per_30_days: 30, days_per_fill: 90, list_price_30_days: 550, min_age: 18 },
  { key: 'jardiance', brand_name: 'Jardiance', generic_name: 'empagliflozin', strength: '10 mg tablet', manufacturer: 'Boehringer Ingelheim', ndc: '00597-0152-30', package: '30 tablets', units_per_30_days: 30, days_per_fill: 90, list_price_30_days: 600, min_age: 10 },
  { key: 'lantus', brand_name: 'Lantus', generic_name: 'insulin glargine', strength: '100 units/mL, 10 mL vial', manufacturer: 'Sanofi-Aventis', ndc: '00088-2220-33', package: '1 vial (10 mL)', units_per_30_days: 1, days_per_fill: 30, list_price_30_days: 290, min_age: 6, generics: ['insulin_glargine_yfgn'] },
  { key: 'farxiga', brand_name: 'Farxiga', generic_name: 'dapagliflozin', strength: '10 mg tablet', manufacturer: 'AstraZeneca', ndc: '00310-6210-30', package: '30 tablets', units_per_30_days: 30, days_per_fill: 90, list_price_30_days: 560, min_age: 10 },
  { key: 'norvasc', brand_name: 'Norvasc', generic_name: 'amlodipine besylate', strength: '5 mg tablet', manufacturer: 'Pfizer', ndc: '00069-1530-68', package: '90 tablets', units_per_30_days: 30, days_per_fill: 90, list_price_30_days: 120, min_age: 6, generics: ['amlodipine'] },
  { key: 'entresto', brand_name: 'Entresto', generic_name: 'sacubitril and valsartan', strength: '49 mg/51 mg tablet', manufacturer: 'Novartis', ndc: '00078-0777-20', package: '60 tablets', units_per_30_days: 60, days_per_fill: 90, list_price_30_days: 650, min_age: 1 },
  { key: 'celebrex', brand_name: 'Celebrex', generic_name: 'celecoxib', strength: '200 mg capsule', manufacturer: 'Pfizer', ndc: '00025-1525-31', package: '100 capsules', units_per_30_days: 30, days_per_fill: 90, list_price_30_days: 400, min_age: 18, generics: ['celecoxib'] },
  { key: 'humira', brand_name: 'Humira', generic_name: 'adalimumab', strength: '40 mg/0.8 mL pen', manufacturer: 'AbbVie', ndc: '00074-4339-02', package: '2 pens', units_per_30_days: 2, days_per_fill: 28, list_price_30_days: 6900, min_age: 2, generics: ['adalimumab_adbm'] },
  { key: 'ventolin', brand_name: 'Ventolin HFA', generic_name: 'albuterol sulfate', strength: '90 mcg/actuation inhaler, 200 actuations', manufacturer: 'GlaxoSmithKline', ndc: '00173-0682-20', package: '1 inhaler', units_per_30_days: 1, days_per_fill: 30, list_price_30_days: 60, min_age: 4, generics: ['albuterol_hfa'] },
  { key: 'symbicort', brand_name: 'Symbicort', generic_name: 'budesonide and formoterol fumarate', strength: '160 mcg/4.5 mcg inhaler, 120 actuations', manufacturer: 'AstraZeneca', ndc: '00186-0370-20', package: '1 inhaler', units_per_30_days: 1, days_per_fill: 90, list_price_30_days: 340, min_age: 6, generics: ['budesonide_formoterol', 'breyna'] },
  { key: 'spiriva', brand_name: 'Spiriva HandiHaler', generic_name: 'tiotropium bromide', strength: '18 mcg inhalation capsule', manufacturer: 'Boehringer Ingelheim', ndc: '00597-0075-41', package: '30 capsules with HandiHaler device', units_per_30_days: 30, days_per_fill: 90, list_price_30_days: 560, min_age: 18, generics: ['tiotropium'] },
  { key: 'zoloft', brand_name: 'Zoloft', generic_name: 'sertraline hydrochloride', strength: '50 mg tablet', manufacturer: 'Pfizer', ndc: '00049-4900-66', package: '30 tablets', units_per_30_days: 30, days_per_fill: 90, list_price_30_days: 110, min_age: 12, generics: ['sertraline'] },
  // Generics (ANDA packages as listed on DailyMed): about 90 % of US prescriptions are filled with generics.
  { key: 'metformin', brand_name: 'Metformin', generic_name: 'metformin hydrochloride', strength: '500 mg tablet', manufacturer: 'Zydus Lifesciences', ndc: '65841-0809-01', package: '100 tablets', units_per_30_days: 60, days_per_fill: 90, list_price_30_days: 12, generic: true, min_age: 10 },
  { key: 'lisinopril', brand_name: 'Lisinopril', generic_name: 'lisinopril', strength: '10 mg tablet', manufacturer: 'Lupin Pharmaceuticals', ndc: '68180-0513-01', package: '90 tablets', units_per_30_days: 30, days_per_fill: 90, list_price_30_days: 9, generic: true, min_age: 6 },
  { key: 'amlodipine', brand_name: 'Amlodipine', generic_name: 'amlodipine besylate', strength: '5 mg tablet', manufacturer: 'GSMS, Incorporated', ndc: '51407-0950-90', package: '90 tablets', units_per_30_days: 30, days_per_fill: 90, list_price_30_days: 10, generic: true, min_age: 6 },
  { key: 'sertraline', brand_name: 'Sertraline', generic_name: 'sertraline hydrochloride', strength: '50 mg tablet', manufacturer: 'Generic labeler 68533', ndc: '68533-0056-12', package: '30 tablets', units_per_30_days: 30, days_per_fill: 90, list_price_30_days: 11, generic: true, min_age: 12 },
  // Generic equivalents of brands above, each package NDC confirmed in the source named beside it (the brand keeps
  // the fills a pharmacy does not substitute; Januvia, Jardiance, Farxiga and Entresto have no generic here, so they
  // keep all theirs). Lantus and Humira are biologics: their "generics" are unbranded biosimilars, which a pharmacy
  // may substitute where they are interchangeable and which the generic share counts as generics.
  // Ventolin HFA's authorized generic (GSK, distributed by Prasco), 18 g canister, 200 actuations: NDC 66993-0019-68
  // (PAAS National, "Generic Albuterol HFA Inhalers", paasnational.com/generic-albuterol-hfa-inhalers/).
  { key: 'albuterol_hfa', brand_name: 'Albuterol Sulfate HFA', generic_name: 'albuterol sulfate', strength: '90 mcg/actuation inhaler, 200 actuations', manufacturer: 'Prasco Laboratories', ndc: '66993-0019-68', package: '1 inhaler (18 g)', units_per_30_days: 1, days_per_fill: 30, list_price_30_days: 30, generic: true, min_age: 4 },
  // Symbicort's authorized generic, 160/4.5 mcg, 120 inhalations: NDC 0310-7370-20 (DailyMed label of AstraZeneca's
  // "Budesonide and Formoterol Fumarate Dihydrate Inhalation Aerosol", via myhealthbox.eu/en/budesonide-and-formoterol-
  // fumarate-dihydrate-aerosol/5244558; PAAS National lists it as Prasco's, paasnational.com/breyna-the-first-fda-
  // approved-symbicort-generic-with-a-0-1-gram-problem/).
  { key: 'budesonide_formoterol', brand_name: 'Budesonide and Formoterol', generic_name: 'budesonide and formoterol fumarate', strength: '160 mcg/4.5 mcg inhaler, 120 actuations', manufacturer: 'Prasco Laboratories', ndc: '00310-7370-20', package: '1 inhaler', units_per_30_days: 1, days_per_fill: 90, list_price_30_days: 220, generic: true, min_age: 6 },
  // Breyna (Mylan/Viatris), the first ANDA generic of Symbicort, 160/4.5 mcg, 120 inhalations: NDC 00378-7503-32
  // (PAAS National, the Breyna article above; launch: vativorx.com/pharmacy-bulletin-07-31-2023/).
  { key: 'breyna', brand_name: 'Breyna', generic_name: 'budesonide and formoterol fumarate', strength: '160 mcg/4.5 mcg inhaler, 120 actuations', manufacturer: 'Mylan Pharmaceuticals', ndc: '00378-7503-32', package: '1 inhaler (10.3 g)', units_per_30_days: 1, days_per_fill: 90, list_price_30_days: 200, generic: true, min_age: 6 },
  // Tiotropium bromide inhalation powder 18 mcg (Lupin, ANDA, the first generic of Spiriva HandiHaler): NDC 68180-964-12
  // (DailyMed setid 496b38ee-45b6-4bb2-a35e-9023c3b73719).
  { key: 'tiotropium', brand_name: 'Tiotropium Bromide', generic_name: 'tiotropium bromide', strength: '18 mcg inhalation capsule', manufacturer: 'Lupin Pharmaceuticals', ndc: '68180-0964-12', package: '1 carton of capsules with LupinHaler device', units_per_30_days: 30, days_per_fill: 90, list_price_30_days: 330, generic: true, min_age: 18 },
  // Celecoxib capsules 200 mg (Alembic Pharmaceuticals, ANDA), bottle of 100: NDC 62332-142-31 (FDA NDC Directory via
  // openFDA, api.fda.gov/drug/ndc.json?search=product_ndc:"62332-142": "100 CAPSULE in 1 BOTTLE (62332-142-31)").
  { key: 'celecoxib', brand_name: 'Celecoxib', generic_name: 'celecoxib', strength: '200 mg capsule', manufacturer: 'Alembic Pharmaceuticals', ndc: '62332-0142-31', package: '100 capsules', units_per_30_days: 30, days_per_fill: 90, list_price_30_days: 25, generic: true, min_age: 18 },
  // Insulin glargine-yfgn (Biocon Biologics' unbranded Semglee, biosimilar to and interchangeable with Lantus),
  // 100 units/mL, 10 mL multiple-dose vial: NDC 83257-014-11 (FDA NDC Directory via openFDA,
  // api.fda.gov/drug/ndc.json?search=product_ndc:"83257-014": "1 VIAL, MULTI-DOSE in 1 CARTON (83257-014-11) / 10 mL
  // in 1 VIAL, MULTI-DOSE"; DailyMed setid 3ac85ebb-5594-59c8-77fd-df254329d151).
  { key: 'insulin_glargine_yfgn', brand_name: 'Insulin Glargine-yfgn', generic_name: 'insulin glargine', strength: '100 units/mL, 10 mL vial', manufacturer: 'Biocon Biologics', ndc: '83257-0014-11', package: '1 vial (10 mL)', units_per_30_days: 1, days_per_fill: 30, list_price_30_days: 100, generic: true, min_age: 6 },
  // Adalimumab-adbm (unbranded Cyltezo, biosimilar to and interchangeable with Humira; Quallent Pharmaceuticals),
  // 40 mg/0.8 mL prefilled syringe, carton of 2 kits: NDC 82009-150-22 (FDA NDC Directory via openFDA,
  // api.fda.gov/drug/ndc.json?search=packaging.package_ndc:"82009-150-22": "2 KIT in 1 CARTON (82009-150-22) / ... 1
  // SYRINGE in 1 TRAY (82009-151-11) / .8 mL in 1 SYRINGE"; DailyMed setid f9986706-9c75-4335-a54f-09d7716dbcef).
  { key: 'adalimumab_adbm', brand_name: 'Adalimumab-adbm', generic_name: 'adalimumab', strength: '40 mg/0.8 mL prefilled syringe', manufacturer: 'Quallent Pharmaceuticals', ndc: '82009-0150-22', package: '2 syringes', units_per_30_days: 2, days_per_fill: 28, list_price_30_days: 1300, generic: true, min_age: 2 },
]

/**
 * Share of fills dispensed as a generic where the brand has a generic equivalent: about 90 % of US prescriptions
 * are filled with generics (Association for Accessible Medicines 2023), and a pharmacy substitutes a generic for
 * nearly every prescription it may.
 */
export const GENERIC_DISPENSING_SHARE = 0.9

const DRUG_KEYS = new Map(MAINTENANCE_DRUGS.map((d) => [d.key, d]))

/** The therapy a drug belongs to: a generic's brand (the brand whose generics list it), else the drug itself. */
export const THERAPY_OF: ReadonlyMap<string, string> = new Map([
  ...MAINTENANCE_DRUGS.map((d) => [d.key, d.key] as const),
  ...MAINTENANCE_DRUGS.flatMap((d) => (d.generics ?? []).map((g) => [g, d.key] as const)),
])

/**
 * Which therapy a patient with a condition takes, if any: the share treated with one of these drugs (the rest
 * take other drugs outside the list, or nothing), and the mix among them. Keys are CONDITIONS keys; a patient
 * takes at most one listed therapy per condition. A brand with generics stands for its molecule.
 */
const CONDITION_THERAPIES: Readonly<Record<string, { treated_share: number; drugs: readonly (readonly [string, number])[] }>> = {
  type2_diabetes: { treated_share: 0.8, drugs: [['metformin', 26], ['januvia', 1], ['jardiance', 1.2], ['farxiga', 0.5], ['lantus', 1.3]] },
  hypertension: { treated_share: 0.75, drugs: [['lisinopril', 55], ['norvasc', 45]] },
  heart_failure: { treated_share: 0.5, drugs: [['entresto', 3], ['farxiga', 1]] },
  ckd: { treated_share: 0.15, drugs: [['farxiga', 1]] },
  osteoarthritis: { treated_share: 0.25, drugs: [['celebrex', 1]] },
  rheumatoid_arthritis: { treated_share: 0.35, drugs: [['humira', 1]] },
  asthma: { treated_share: 0.6, drugs: [['ventolin', 3], ['symbicort', 2]] },
  copd: { treated_share: 0.6, drugs: [['spiriva', 3], ['symbicort', 1], ['ventolin', 1]] },
  depression: { treated_share: 0.45, drugs: [['zoloft', 20]] },
}

/**
 * Which dispensed product (package NDC) a patient with a condition takes: CONDITION_THERAPIES with each brand that
 * has generics split into the brand (1 - GENERIC_DISPENSING_SHARE of its weight) and its generics (the rest, shared
 * equally).
 */
export const CONDITION_DRUGS: Readonly<Record<string, { treated_share: number; drugs: readonly (readonly [string, number])[] }>> = Object.fromEntries(
  Object.entries(CONDITION_THERAPIES).map(([condition, plan]) => [
    condition,
    {
      treated_share: plan.treated_share,
      drugs: plan.drugs.flatMap(([key, weight]): (readonly [string, number])[] => {
        const generics = DRUG_KEYS.get(key)?.generics ?? []
        if (generics.length === 0) return [[key, weight]]
        return [[key, weight * (1 - GENERIC_DISPENSING_SHARE)], ...generics.map((g) => [g, (weight * GENERIC_DISPENSING_SHARE) / generics.length] as const)]
      }),
    },
  ]),
)
