import { endpoints, type ANALYTICS_EVENT_NAMES } from '@citrus/contracts'
import { api } from './api-client'

/** Event names the shell records (spec 1 §7); other areas add their own snake_case names. */
export type AnalyticsEventName = (typeof ANALYTICS_EVENT_NAMES)[number] | (string & {})

export type AnalyticsProperties = Record<string, string | number | boolean | null>

export interface AnalyticsEvent {
  name: AnalyticsEventName
  properties: AnalyticsProperties
}

type Transport = (events: AnalyticsEvent[]) => Promise<unknown>

let transport: Transport = (events) => api(endpoints.analytics.events, { body: { events } })

/** Lets tests observe events without a server. */
export function setAnalyticsTransport(next: Transport): () => void {
  const previous = transport
  transport = next
  return () => {
    transport = previous
  }
}

/** Records an event; analytics never breaks the page, so failures are ignored. */
export function track(name: AnalyticsEventName, properties: AnalyticsProperties = {}): void {
  try {
    void transport([{ name, properties }]).catch(() => {})
  } catch {
    // ignored on purpose: see above
  }
}
