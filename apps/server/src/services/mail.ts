import nodemailer from 'nodemailer'
import type { Env } from '../config.js'

export interface SmtpSettings {
  host: string
  port: number
  secure: boolean
  user: string | null
  password: string | null
  from: string
}

/** SMTP settings from the environment, or null when SMTP_HOST is not set (e-mails are then held). */
export function smtpSettingsFrom(env: Env): SmtpSettings | null {
  if (!env.SMTP_HOST) return null
  const secure = env.SMTP_SECURE ?? env.SMTP_PORT === 465
  return {
    host: env.SMTP_HOST,
    port: env.SMTP_PORT ?? (secure ? 465 : 587),
    secure,
    user: env.SMTP_USER ?? null,
    password: env.SMTP_PASSWORD ?? null,
    from: env.SMTP_FROM ?? `Citrus <no-reply@${env.SMTP_HOST}>`,
  }
}

export interface OutgoingEmail {
  to: string
  subject: string
  text: string
  html?: string
}

export interface Mailer {
  send(email: OutgoingEmail): Promise<void>
  close(): void
}

export function createSmtpMailer(settings: SmtpSettings): Mailer {
  const transport = nodemailer.createTransport({
    host: settings.host,
    port: settings.port,
    secure: settings.secure,
    ...(settings.user ? { auth: { user: settings.user, pass: settings.password ?? '' } } : {}),
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  })
  return {
    async send(email) {
      await transport.sendMail({
        from: settings.from,
        to: email.to,
        subject: email.subject,
        text: email.text,
        ...(email.html ? { html: email.html } : {}),
      })
    },
    close() {
      transport.close()
    },
  }
}
