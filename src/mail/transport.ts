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
  const transport = smtpTransport(config.smtpUrl);
  return {
    async send(mail) {
      await transport.sendMail({ from: config.smtpFrom, ...mail });
    },
    close: () => transport.close(),
  };
}

/** SMTP_URL without its credentials, for messages: `smtp://host:port`. */
export function mailServerName(smtpUrl: string): string {
  const url = new URL(smtpUrl);
  return `${url.protocol}//${url.hostname}:${portOf(url)}`;
}

// nodemailer's error codes, as an operator would put them.
const PROBLEMS: Record<string, string> = {
  EAUTH: 'it refused the user name and password in SMTP_URL',
  ECONNREFUSED: 'nothing answers on that port',
  ESOCKET: 'the connection failed',
  ETIMEDOUT: `it did not answer within ${TIMEOUT_MS / 1000} s`,
  EDNS: 'its host name does not resolve',
  ETLS: 'TLS failed: smtps:// needs a server that speaks TLS at once (port 465); use smtp:// for STARTTLS',
};

/**
 * What is wrong with the mail server SMTP_URL names, in words an operator can act on, or
 * null when it greets us and takes our login: checked once at start, so a typo shows in
 * the log before the first invite or alert fails.
 */
export async function mailServerProblem(smtpUrl: string): Promise<string | null> {
  const transport = smtpTransport(smtpUrl);
  try {
    await transport.verify();
    return null;
  } catch (error) {
    const { message } = error as Error;
    let { code } = error as { code?: string };
    // A refused connection and a TLS handshake with a plain server both come as ESOCKET.
    if (/ECONNREFUSED/.test(message)) code = 'ECONNREFUSED';
    else if (/SSL|TLS|wrong version/i.test(message)) code = 'ETLS';
    const reason = (code && PROBLEMS[code]) ?? message;
    return `the mail server ${mailServerName(smtpUrl)} cannot be used: ${reason}`;
  } finally {
    transport.close();
  }
}

const portOf = (url: URL) => (url.port ? Number(url.port) : url.protocol === 'smtps:' ? 465 : 587);

function smtpTransport(smtpUrl: string): Transporter {
  const url = new URL(smtpUrl);
  return nodemailer.createTransport({
    host: url.hostname,
    port: portOf(url),
    secure: url.protocol === 'smtps:',
    ...(url.username && {
      auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) },
    }),
    connectionTimeout: TIMEOUT_MS,
    greetingTimeout: TIMEOUT_MS,
    socketTimeout: TIMEOUT_MS,
  });
}
