import twilio from 'twilio'
import type { Env } from '../config.js'

export interface SmsSettings {
  accountSid: string
  authToken: string
  /** an E.164 number or a Messaging Service SID (MG...) */
  from: string
  /** base URL of the Messages API; null = Twilio's */
  apiUrl: string | null
}

/** Twilio settings from the environment, or null when they are incomplete (SMS are then held in the outbox). */
export function smsSettingsFrom(env: Env): SmsSettings | null {
  if (!env.TWILIO_ACCOUNT_SID || !env.TWILIO_AUTH_TOKEN || !env.TWILIO_FROM) return null
  return { accountSid: env.TWILIO_ACCOUNT_SID, authToken: env.TWILIO_AUTH_TOKEN, from: env.TWILIO_FROM, apiUrl: env.TWILIO_API_URL ?? null }
}

export interface SmsSender {
  /** sends one SMS; resolves with Twilio's message SID, rejects when Twilio refuses or cannot be reached */
  send(to: string, body: string): Promise<string>
}

/** SMS through the Twilio SDK (Messages API). */
export function createTwilioSender(settings: SmsSettings): SmsSender {
  const client = twilio(settings.accountSid, settings.authToken, { autoRetry: false, timeout: 10_000 })
  if (settings.apiUrl) client.api.baseUrl = settings.apiUrl.replace(/\/+$/, '')
  const sender = settings.from.startsWith('MG') ? { messagingServiceSid: settings.from } : { from: settings.from }
  return {
    async send(to, body) {
      const message = await client.messages.create({ to, body, ...sender })
      return message.sid
    },
  }
}
