/** The shapes of a searchset Bundle as the FHIR integration tests read it (not a product type: the server writes text). */
export interface TestResource extends Record<string, unknown> {
  resourceType: string
  id: string
}

export interface Entry {
  fullUrl: string
  resource: TestResource
  search: { mode: string; extension?: { url: string; valueDistance: { value: number; unit: string; code: string } }[] }
}

export interface Bundle {
  resourceType: 'Bundle'
  total?: number
  link: { relation: string; url: string }[]
  entry?: Entry[]
}
