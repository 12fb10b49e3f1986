import type { PayerType } from './calibration.ts'
import type { Rng } from './prng.ts'
import {
  CHARGE_MARKUP,
  COMMERCIAL_MULTIPLE,
  MEDICAID_MULTIPLE,
  MEDICARE_FEE,
  PAYER_PRICE_SIGMA,
  ZERO_COST_SHARING_CODES,
  type PlanDesign,
} from './realism.ts'

/**
 * Prices and cost sharing of claim lines: allowed amounts anchored to Medicare fee levels with payer
 * multiples and per-facility dispersion, gross charges as chargemaster markups, and the patient's share from
 * the plan design (deductible, copay, coinsurance, out-of-pocket maximum; preventive services at $0).
 */
/**
 * How strongly a facility's price level shows in a service's price: shoppable imaging and procedures vary most
 * across facilities (Cooper et al. 2019), labs and visits least. The exponent applies to the log-normal level.
 */
export const PRICE_DISPERSION: Readonly<Record<string, number>> = {
  imaging: 1.35,
  surgery: 1.1,
  endoscopy: 1.1,
  cardiology: 1.1,
  maternity: 0.9,
  emergency: 0.9,
  hospital: 0.8,
  lab: 0.6,
  office_visit: 0.5,
  preventive: 0.5,
}
export const dispersed = (factor: number, category: string | undefined) => factor ** (PRICE_DISPERSION[category ?? ''] ?? 0.8)

export type ServiceSetting = 'office' | 'outpatient' | 'asc' | 'inpatient' | 'emergency'

const round2 = (n: number) => Math.round(n * 100) / 100
export const isDrugCode = (code: string) => /^J\d/.test(code)

/** Medicare allowed amount of a code (realism.MEDICARE_FEE; otherwise a third of the synthetic base charge). */
export function medicareFee(code: string, basePrice: number): number {
  return MEDICARE_FEE[code] ?? round2(basePrice / 3)
}

export interface LinePrice {
  list: number
  allowed: number
}

/**
 * One line's gross charge and allowed amount. `facilityFactor` is the facility's (or the practice's) commercial
 * price level (log-normal, median 1) and `chargeFactor` its chargemaster level. Uninsured patients are billed the
 * discounted cash price; TRICARE pays Medicare rates.
 */
export function priceLine(
  rng: Rng,
  code: string,
  basePrice: number,
  payer: PayerType,
  insurer: string | null,
  setting: ServiceSetting,
  facilityFactor: number,
  chargeFactor: number,
): LinePrice {
  const fee = medicareFee(code, basePrice)
  const drug = isDrugCode(code)
  const hospital = setting !== 'office'
  const list = round2(fee * (hospital ? CHARGE_MARKUP.hospital : CHARGE_MARKUP.professional) * chargeFactor * rng.lognormal(0.05))
  let allowed: number
  if (payer === 'medicare') allowed = fee * rng.lognormal(0.03)
  else if (payer === 'medicaid')
    allowed =
      fee * (drug ? MEDICAID_MULTIPLE.drug : hospital ? MEDICAID_MULTIPLE.hospital : MEDICAID_MULTIPLE.professional) * rng.lognormal(0.05)
  else if (payer === 'commercial')
    allowed =
      fee *
      (drug
        ? COMMERCIAL_MULTIPLE.drug
        : setting === 'asc'
          ? COMMERCIAL_MULTIPLE.asc
          : hospital
            ? COMMERCIAL_MULTIPLE.hospital
            : COMMERCIAL_MULTIPLE.professional) *
      (drug ? 1 : facilityFactor) *
      rng.lognormal(PAYER_PRICE_SIGMA)
  else allowed = insurer === 'TRICARE' ? fee : list * 0.55
  // drugs are paid at least at Medicare's ASP + 6 % (never below what the hospital paid for them)
  if (drug) allowed = Math.max(allowed, fee)
  allowed = round2(allowed)
  return { list: Math.max(list, round2(allowed * 1.05)), allowed }
}

/** What kind of encounter a claim is, for copays. */
export type EncounterKind = 'preventive' | 'primary_care' | 'specialist' | 'emergency' | 'inpatient' | 'outpatient'

/** A patient's running deductible and out-of-pocket spend in one calendar year. */
export interface CostSharingState {
  year: number
  deductible_met: number
  out_of_pocket: number
}

const OOP_MAX: Record<PlanDesign['kind'], number> = {
  commercial_ppo: 4_500,
  commercial_hdhp: 6_000,
  medicare_ffs: Infinity,
  medicare_advantage: 5_000,
  medicaid: 300,
  tricare: 1_000,
  uninsured: Infinity,
}

/**
 * The patient's share of each line of one claim, in claim order, updating the year's deductible and
 * out-of-pocket spend. Preventive services and zero-cost-sharing codes are free (ACA §2713, Medicare AWV);
 * a copay covers the visit's E/M line; other lines go to the deductible, then coinsurance, up to the
 * out-of-pocket maximum. `stayDays` sets Medicare Advantage's per-day inpatient copay (first 5 days).
 */
export function patientShares(
  plan: PlanDesign,
  state: CostSharingState,
  kind: EncounterKind,
  lines: readonly { code: string; allowed: number; facilityInclusive: boolean }[],
  stayDays = 1,
): number[] {
  if (plan.kind === 'uninsured') return lines.map((l) => l.allowed)
  const copay =
    kind === 'primary_care'
      ? plan.pcp_copay
      : kind === 'specialist' || kind === 'outpatient'
        ? plan.specialist_copay
        : kind === 'emergency'
          ? plan.ed_copay
          : kind === 'inpatient'
            ? plan.inpatient_copay
            : null
  let copayUsed = false
  const room = () => Math.max(0, OOP_MAX[plan.kind] - state.out_of_pocket)
  return lines.map((line) => {
    if (kind === 'preventive' || ZERO_COST_SHARING_CODES.has(line.code)) return 0
    let share: number
    if (copay !== null && !copayUsed && (kind !== 'inpatient' || line.facilityInclusive || plan.kind === 'medicare_advantage')) {
      copayUsed = true
      const amount = kind === 'inpatient' && plan.kind === 'medicare_advantage' ? copay * Math.min(5, Math.max(1, stayDays)) : copay
      share = Math.min(line.allowed, amount)
    } else if (copay !== null && kind !== 'inpatient' && kind !== 'outpatient') {
      // the copay covers the visit; tests and shots on the same claim add nothing
      share = 0
    } else {
      const deductible = Math.max(0, Math.min(plan.deductible - state.deductible_met, line.allowed))
      state.deductible_met += deductible
      share = deductible + (line.allowed - deductible) * plan.coinsurance
    }
    share = round2(Math.min(share, room()))
    state.out_of_pocket += share
    return share
  })
}
