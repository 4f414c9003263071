import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../config.js';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Extra headers, e.g. List-Unsubscribe (RFC 2369, RFC 8058). */
  headers?: Record<string, string>;
  /** Aborts the message: its connection is closed, so the server does not take it. */
  signal?: AbortSignal;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
  close(): void;
}

// Gives up on a slow mail server rather than holding the request that sends.
const TIMEOUT_MS = 10_000;

/** E-mail through SMTP_URL; null when it is not set (links are then shown, not sent). */
export function createMailer(config: Config): Mailer | null {
  if (!config.smtpUrl) return null;
  const url = new URL(config.smtpUrl);
  const transport: Transporter = nodemailer.createTransport({
    host: url.hostname,
    port: url.port ? Number(url.port) : url.protocol === 'smtps:' ? 465 : 587,
    secure: url.protocol === 'smtps:',
    ...(url.username && {
      auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) },
    }),
    connectionTimeout: TIMEOUT_MS,
    greetingTimeout: TIMEOUT_MS,
    socketTimeout: TIMEOUT_MS,
  });
  return {
    async send(mail) {
      await transport.sendMail({ from: config.smtpFrom, ...mail });
    },
    close: () => transport.close(),
  };
}
