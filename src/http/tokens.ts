import { randomUUID } from 'node:crypto';
import { decodeJwt, jwtVerify, SignJWT } from 'jose';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { isUuid } from './validation.js';

const ISSUER = 'footfall';

/** Who a verified token speaks for. */
export interface TokenIdentity {
  userId: string;
  tokenId: string;
}

export interface IssuedToken {
  id: string;
  token: string;
  expiresAt: Date | null;
}

/**
 * Personal access tokens: HS256 JWTs whose `jti` names a row in access_tokens, so a token
 * can be revoked before it expires.
 */
export class Tokens {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly key: Uint8Array,
  ) {}

  async issue(userId: string, name: string, expiresAt: Date | null): Promise<IssuedToken> {
    const id = randomUUID();
    await this.db
      .insertInto('access_tokens')
      .values({ id, user_id: userId, name, expires_at: expiresAt, revoked_at: null })
      .execute();
    const jwt = new SignJWT({})
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(ISSUER)
      .setSubject(userId)
      .setJti(id)
      .setIssuedAt();
    if (expiresAt) jwt.setExpirationTime(Math.floor(expiresAt.getTime() / 1000));
    return { id, token: await jwt.sign(this.key), expiresAt };
  }

  /** The token's identity, or null when it is malformed, foreign-signed, expired or revoked. */
  async verify(token: string): Promise<TokenIdentity | null> {
    let claims: { sub?: string; jti?: string };
    try {
      ({ payload: claims } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        issuer: ISSUER,
      }));
    } catch {
      return null;
    }
    if (!claims.sub || !claims.jti || !isUuid(claims.jti)) return null;
    const row = await this.db
      .selectFrom('access_tokens')
      .select(['user_id', 'expires_at', 'revoked_at'])
      .where('id', '=', claims.jti)
      .executeTakeFirst();
    if (!row || row.revoked_at || row.user_id !== claims.sub) return null;
    if (row.expires_at && row.expires_at.getTime() <= Date.now()) return null;
    return { userId: row.user_id, tokenId: claims.jti };
  }

  /** Revokes by token id (or by the token itself); false when no such live token exists. */
  async revoke(idOrToken: string): Promise<boolean> {
    const id = isUuid(idOrToken) ? idOrToken : jtiOf(idOrToken);
    if (!id) return false;
    const result = await this.db
      .updateTable('access_tokens')
      .set({ revoked_at: new Date() })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** When a token expires: null when never, undefined when there is no such token. */
  async expiry(id: string): Promise<Date | null | undefined> {
    const row = await this.db
      .selectFrom('access_tokens')
      .select('expires_at')
      .where('id', '=', id)
      .executeTakeFirst();
    return row?.expires_at;
  }

  async list(userId: string) {
    return this.db
      .selectFrom('access_tokens')
      .select(['id', 'name', 'created_at', 'expires_at', 'revoked_at'])
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .execute();
  }
}

function jtiOf(token: string): string | null {
  try {
    const { jti } = decodeJwt(token);
    return jti && isUuid(jti) ? jti : null;
  } catch {
    return null;
  }
}

/** Parses `90d`, `12h`, `30m`, `2w`, `1y` into milliseconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+)\s*([smhdwy])$/.exec(text.trim());
  if (!match) throw new Error(`"${text}" is not a duration like 90d, 12h, 2w or 1y.`);
  const unit = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800, y: 31_536_000 }[
    match[2] as 's' | 'm' | 'h' | 'd' | 'w' | 'y'
  ];
  const ms = Number(match[1]) * unit * 1000;
  if (ms <= 0) throw new Error(`"${text}" must be longer than zero.`);
  return ms;
}
