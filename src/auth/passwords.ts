import { hash, verify } from '@node-rs/argon2';

/** Contract §12: at least 10 characters; long enough to be a passphrase, capped for argon2. */
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 1024;

// argon2id (the library's default algorithm) at OWASP's baseline: 19 MiB, 2 passes, 1 lane.
const OPTIONS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

// Verified against when the address is unknown, so both failures take the same time.
let decoy: Promise<string> | undefined;

/** Whether `password` matches `stored`; with no stored hash, spends the same time and fails. */
export async function checkPassword(stored: string | null, password: string): Promise<boolean> {
  if (!stored) {
    decoy ??= hashPassword('not a password anyone has');
    await verify(await decoy, password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}

/** Why a new password is refused, or null when it is fine. */
export function passwordProblem(password: string): string | null {
  if (password.length < PASSWORD_MIN) {
    return `The password must be at least ${PASSWORD_MIN} characters.`;
  }
  if (password.length > PASSWORD_MAX) {
    return `The password must be at most ${PASSWORD_MAX} characters.`;
  }
  return null;
}
