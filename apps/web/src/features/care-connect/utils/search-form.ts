import { rankingsQuerySchema, type SpecialtyOption } from '@citrus/contracts'
import { schemaResolver, type FormErrors } from '@mantine/form'
import { CARE_MESSAGES_UI } from './messages'

/** The values of the care search form: the search's fields as chosen (the specialty with its genre, codes as lists). */
export interface CareSearchValues {
  zip_code: string
  taxonomy: SpecialtyOption | null
  insurer: string | null
  cpt: string[]
  icd: string[]
}

/** The part of the rankings query the form requires: the 5-digit ZIP and the specialty (omni_code). */
const requiredSearchSchema = rankingsQuerySchema.pick({ zip_code: true, omni_code: true })
const resolveRequired = schemaResolver(requiredSearchSchema, { sync: true })

/**
 * The form's errors by the contract's rankings query schema (spec 3 §5): a ZIP the schema refuses shows the screen's
 * 'Invalid ZIP code format. Expected 5 digits.' (the server's 'zip_code must be 5 digits' is an API message); a missing
 * specialty has no text of its own on the form (Find Providers stays disabled, and a submit says
 * 'Please, make sure that your zip code and taxonomy code are valid.').
 */
export function careSearchErrors(values: CareSearchValues): FormErrors {
  const errors = resolveRequired({ zip_code: values.zip_code, omni_code: values.taxonomy?.code ?? '' })
  const mapped: FormErrors = {}
  if (errors.zip_code) mapped.zip_code = CARE_MESSAGES_UI.zipFormat
  if (errors.omni_code) mapped.taxonomy = errors.omni_code
  return mapped
}
