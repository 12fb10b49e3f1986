/** Broad clinician types: the credential families of the directory and the unit of the calibration. */
export const PROVIDER_KINDS = [
  'physician',
  'nurse_practitioner',
  'physician_assistant',
  'dentist',
  'optometrist',
  'podiatrist',
  'physical_therapist',
  'occupational_therapist',
  'counselor',
  'psychologist',
  'social_worker',
  'chiropractor',
  'pharmacist',
  'registered_nurse',
  'nurse_anesthetist',
  'nurse_midwife',
  'dietitian',
  'speech_language_pathologist',
  'audiologist',
  /** technicians, EMTs, students in training and other individual NPIs */
  'other',
  /** organisation taxonomies (hospitals, clinics, labs): not a clinician kind */
  'facility',
] as const
export type ProviderKind = (typeof PROVIDER_KINDS)[number]
