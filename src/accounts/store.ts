import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database, Role } from '../db/schema.js';
import { unprocessable } from '../http/errors.js';
import { isUuid } from '../http/validation.js';

export interface Member {
  id: string;
  name: string;
  email: string;
  role: Role;
}

/** The user's role in a live workspace, or undefined when not a member (or it is deleted). */
export async function membershipOf(
  db: Kysely<Database>,
  userId: string,
  workspaceId: string,
): Promise<Role | undefined> {
  const row = await db
    .selectFrom('workspace_members as m')
    .innerJoin('workspaces as w', 'w.id', 'm.workspace_id')
    .select('m.role')
    .where('m.workspace_id', '=', workspaceId)
    .where('m.user_id', '=', userId)
    .where('w.deleted_at', 'is', null)
    .executeTakeFirst();
  return row?.role;
}

/**
 * A member of the workspace named by uuid or `me` (the caller): the member's id; 422 on
 * `field` when it names nobody who is a member.
 */
export async function memberNamed(
  db: Kysely<Database>,
  workspaceId: string,
  callerId: string,
  value: string,
  field: string,
): Promise<string> {
  const id = value === 'me' ? callerId : value;
  if (!isUuid(id) || !(await membershipOf(db, id, workspaceId))) {
    throw unprocessable({
      [field]: ['The owner must be a member of the workspace (a uuid, or me).'],
    });
  }
  return id;
}

export async function listMembers(db: Kysely<Database>, workspaceId: string): Promise<Member[]> {
  return db
    .selectFrom('workspace_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.id', 'u.name', 'u.email', 'm.role'])
    .where('m.workspace_id', '=', workspaceId)
    .orderBy(sql`CASE m.role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 ELSE 2 END`)
    .orderBy(sql`lower(u.email)`)
    .execute();
}

export async function findMember(
  db: Kysely<Database>,
  workspaceId: string,
  userId: string,
): Promise<Member | undefined> {
  return db
    .selectFrom('workspace_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.id', 'u.name', 'u.email', 'm.role'])
    .where('m.workspace_id', '=', workspaceId)
    .where('m.user_id', '=', userId)
    .executeTakeFirst();
}

/** Adds a member; one who is already a member keeps the role they have. */
export async function addMember(
  db: Kysely<Database> | Transaction<Database>,
  workspaceId: string,
  userId: string,
  role: Role,
): Promise<void> {
  await db
    .insertInto('workspace_members')
    .values({ workspace_id: workspaceId, user_id: userId, role })
    .onConflict((conflict) => conflict.columns(['workspace_id', 'user_id']).doNothing())
    .execute();
}

/**
 * Changes a role or (role null) removes the member, refusing to leave the workspace without
 * an owner. The owners are locked first so two concurrent demotions cannot both pass.
 */
export async function changeMember(
  db: Kysely<Database>,
  workspaceId: string,
  userId: string,
  role: Role | null,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const owners = await trx
      .selectFrom('workspace_members')
      .select('user_id')
      .where('workspace_id', '=', workspaceId)
      .where('role', '=', 'owner')
      .forUpdate()
      .execute();
    const lastOwner = owners.length === 1 && owners[0]?.user_id === userId;
    if (lastOwner && role !== 'owner') {
      throw unprocessable(
        { role: ['A workspace needs at least one owner: make someone else owner first.'] },
        role === null
          ? 'The last owner cannot leave or be removed: make someone else owner first.'
          : 'A workspace needs at least one owner: make someone else owner first.',
      );
    }
    if (role === null) {
      await trx
        .deleteFrom('workspace_members')
        .where('workspace_id', '=', workspaceId)
        .where('user_id', '=', userId)
        .execute();
    } else {
      await trx
        .updateTable('workspace_members')
        .set({ role })
        .where('workspace_id', '=', workspaceId)
        .where('user_id', '=', userId)
        .execute();
    }
  });
}
