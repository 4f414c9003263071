import { type Kysely, sql, type Transaction } from 'kysely';
import { newSecret, sha256 } from '../auth/browser-sessions.js';
import type { Database } from '../db/schema.js';

/** Contract §12: an invite link is single-use and expires after 7 days. */
export const INVITE_DAYS = 7;

export interface OpenInvite {
  email: string;
  role: 'admin' | 'member';
  expires_at: Date;
}

export interface InviteDetails {
  workspace: { uuid: string; name: string };
  email: string;
  role: 'admin' | 'member';
}

/** A new invite link's secret; inviting the same address again replaces the older link. */
export async function createInvite(
  db: Kysely<Database>,
  invite: { workspaceId: string; email: string; role: 'admin' | 'member'; invitedBy: string },
): Promise<string> {
  const secret = newSecret();
  const expiresAt = new Date(Date.now() + INVITE_DAYS * 86_400_000);
  await sql`
    INSERT INTO invites (secret_hash, workspace_id, email, role, invited_by, expires_at)
    VALUES (${sha256(secret)}, ${invite.workspaceId}, ${invite.email}, ${invite.role},
            ${invite.invitedBy}, ${expiresAt})
    ON CONFLICT (workspace_id, lower(email)) DO UPDATE SET
      secret_hash = excluded.secret_hash, email = excluded.email, role = excluded.role,
      invited_by = excluded.invited_by, created_at = now(), expires_at = excluded.expires_at`.execute(
    db,
  );
  return secret;
}

export async function listOpenInvites(
  db: Kysely<Database>,
  workspaceId: string,
): Promise<OpenInvite[]> {
  return db
    .selectFrom('invites')
    .select(['email', 'role', 'expires_at'])
    .where('workspace_id', '=', workspaceId)
    .where('expires_at', '>', new Date())
    .orderBy(sql`lower(email)`)
    .execute();
}

/** The open invite a link names, or undefined once used, expired or its workspace deleted. */
export async function findInvite(
  db: Kysely<Database> | Transaction<Database>,
  secret: string,
  lock = false,
): Promise<(InviteDetails & { workspaceId: string }) | undefined> {
  let query = db
    .selectFrom('invites as i')
    .innerJoin('workspaces as w', 'w.id', 'i.workspace_id')
    .select(['i.workspace_id', 'w.name', 'i.email', 'i.role'])
    .where('i.secret_hash', '=', sha256(secret))
    .where('i.expires_at', '>', new Date())
    .where('w.deleted_at', 'is', null);
  if (lock) query = query.forUpdate('i');
  const row = await query.executeTakeFirst();
  if (!row) return undefined;
  return {
    workspaceId: row.workspace_id,
    workspace: { uuid: row.workspace_id, name: row.name },
    email: row.email,
    role: row.role,
  };
}

/** Spends the link: it works once. */
export async function useInvite(trx: Transaction<Database>, secret: string): Promise<void> {
  await trx.deleteFrom('invites').where('secret_hash', '=', sha256(secret)).execute();
}

export async function removeExpiredInvites(db: Kysely<Database>): Promise<void> {
  await db.deleteFrom('invites').where('expires_at', '<=', new Date()).execute();
}
