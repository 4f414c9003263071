import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.js';

/**
 * Keys derived from one master secret: TOKEN_SECRET, or one generated on first start and
 * kept in DATA_DIR/secret.key. It lives outside the database on purpose, so a database
 * dump alone can neither forge tokens nor decrypt webhook secrets.
 */
export interface Keys {
  /** HMAC key for personal access tokens (HS256). */
  tokenSigning: Uint8Array;
  /** AES-256-GCM key for secrets kept at rest. */
  encryption: Buffer;
}

export async function loadKeys(config: Config): Promise<Keys> {
  const master = config.tokenSecret ?? (await readOrCreateSecret(config.dataDir));
  const derive = (purpose: string) =>
    Buffer.from(hkdfSync('sha256', master, 'footfall', purpose, 32));
  return {
    tokenSigning: new Uint8Array(derive('personal access tokens')),
    encryption: derive('secrets at rest'),
  };
}

// As TOKEN_SECRET; a generated one has 43.
const MIN_SECRET_LENGTH = 32;

async function readOrCreateSecret(dataDir: string): Promise<string> {
  const file = path.join(dataDir, 'secret.key');
  try {
    return usableSecret(file, await fs.readFile(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await fs.mkdir(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  try {
    // `wx`: if another process created it first, use theirs.
    await fs.writeFile(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch {
    return usableSecret(file, await fs.readFile(file, 'utf8'));
  }
}

/** An empty or short file (a failed copy, a truncated disk) would sign tokens anyone can forge. */
function usableSecret(file: string, text: string): string {
  const secret = text.trim();
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new Error(
      `${file} holds ${secret.length} characters, not a secret of at least ${MIN_SECRET_LENGTH}. ` +
        'Restore it from a backup, or delete it to generate a new one (which signs out every ' +
        'token and makes stored webhook secrets unreadable), or set TOKEN_SECRET.',
    );
  }
  return secret;
}

/** Encrypts with AES-256-GCM; the result is iv ‖ tag ‖ ciphertext. */
export function encrypt(key: Buffer, plaintext: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
}

export function decrypt(key: Buffer, sealed: Buffer): string {
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
  decipher.setAuthTag(sealed.subarray(12, 28));
  return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]).toString('utf8');
}
