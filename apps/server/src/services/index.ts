import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import type { MessageOutbox } from '../generated/prisma/client.js'
import { createSmtpMailer, smtpSettingsFrom, type Mailer } from './mail.js'
import { Outbox, type Deliver } from './outbox.js'
import { createTwilioSender, smsSettingsFrom, type SmsSender } from './sms.js'
import fp from 'fastify-plugin'

export interface Services {
  outbox: Outbox
  /** origin used in links inside messages: PUBLIC_URL, else http://localhost:PORT */
  publicUrl: string
  feedbackWebhookUrl: string | null
}

declare module 'fastify' {
  interface FastifyInstance {
    services: Services
  }
}

// Keyed by the HTTP server, which every encapsulation context of one app shares, so that tests and
// the process can reach the services of an app built by buildApp from its root instance.
const registry = new WeakMap<object, Services>()

export function servicesOf(app: FastifyInstance): Services {
  const services = registry.get(app.server)
  if (!services) throw new Error('services are not registered on this app')
  return services
}

function webhookDeliverer(): Deliver {
  return async (message: MessageOutbox) => {
    const response = await fetch(message.recipient, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(message.payload ?? { text: message.body }),
      signal: AbortSignal.timeout(10_000),
    })
    // the body is not read (spec 1 §7), only drained
    await response.body?.cancel()
    if (!response.ok) throw new Error(`webhook answered ${response.status}`)
  }
}

function emailDeliverer(mailer: Mailer): Deliver {
  return async (message: MessageOutbox) => {
    const payload = message.payload as { html?: unknown } | null
    await mailer.send({
      to: message.recipient,
      subject: message.subject ?? '',
      text: message.body,
      ...(typeof payload?.html === 'string' ? { html: payload.html } : {}),
    })
  }
}

function smsDeliverer(sender: SmsSender): Deliver {
  return async (message: MessageOutbox) => {
    await sender.send(message.recipient, message.body)
  }
}

/** Outbox, mail and links for the routes; the worker runs from onReady to onClose. */
export function registerServices(app: FastifyInstance) {
  const env = app.config.env
  const smtp = smtpSettingsFrom(env)
  const mailer = smtp ? createSmtpMailer(smtp) : null
  const sms = smsSettingsFrom(env)
  const outbox = new Outbox({
    prisma: app.db.prisma,
    log: app.log,
    deliverers: {
      webhook: webhookDeliverer(),
      ...(mailer ? { email: emailDeliverer(mailer) } : {}),
      ...(sms ? { sms: smsDeliverer(createTwilioSender(sms)) } : {}),
    },
    logHeldBodies: env.NODE_ENV !== 'production',
    // test apps share one database but each has its own SMTP capture: keep their messages apart
    scope: env.OUTBOX_SCOPE ?? (env.NODE_ENV === 'test' ? `test-${randomUUID()}` : null),
  })
  const services: Services = {
    outbox,
    publicUrl: (env.PUBLIC_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, ''),
    feedbackWebhookUrl: env.FEEDBACK_WEBHOOK_URL ?? null,
  }
  app.decorate('services', services)
  registry.set(app.server, services)
  if (!smtp) app.log.info('SMTP_HOST is not set: e-mails are kept in the outbox with status held')
  if (!sms)
    app.log.info('TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM are not all set: SMS are kept in the outbox with status held')

  app.addHook('onReady', async () => {
    outbox.start(env.OUTBOX_POLL_INTERVAL_MS)
  })
  app.addHook('onClose', async () => {
    await outbox.stop()
    mailer?.close()
    registry.delete(app.server)
  })
}

/** The outbox, mail and link services as a plugin of the /api scope. */
export const servicesPlugin = fp(async (app) => registerServices(app), { name: 'services', fastify: '5.x' })
