// Antivenoms for North American pit viper (crotalid) envenomation. NDCs from the FDA NDC directory /
// DailyMed labels; HCPCS codes from the CMS HCPCS file (J0840, J0841).
export interface AntivenomProduct {
  key: 'crofab' | 'anavip'
  brand_name: string
  generic_name: string
  manufacturer: string
  hcpcs_code: string
  /** Package NDCs, 11-digit 5-4-2 form. */
  ndcs: readonly string[]
  /** Typical initial dose in vials (label) and the synthetic wholesale price per vial used by the generator. */
  initial_dose_vials: readonly [number, number]
  price_per_vial: number
}

export const ANTIVENOM_PRODUCTS: readonly AntivenomProduct[] = [
  {
    key: 'crofab',
    brand_name: 'CroFab',
    generic_name: 'Crotalidae polyvalent immune fab (ovine)',
    manufacturer: 'BTG International Inc. (SERB Pharmaceuticals)',
    hcpcs_code: 'J0840',
    ndcs: ['50633-0110-11', '50633-0110-12'],
    initial_dose_vials: [4, 6],
    price_per_vial: 3200,
  },
  {
    key: 'anavip',
    brand_name: 'Anavip',
    generic_name: "Crotalidae immune F(ab')2 (equine)",
    manufacturer: 'Rare Disease Therapeutics, Inc.',
    hcpcs_code: 'J0841',
    ndcs: ['66621-0790-02'],
    initial_dose_vials: [10, 10],
    price_per_vial: 1500,
  },
]
