import { type Kysely, sql } from 'kysely';

/**
 * The sessions not yet ended, by their last event: the session.ended job
 * (sessions/ended.ts) takes the oldest of them four times a second.
 *
 * The only index of the unnotified sessions led with the workspace and the organisation, so
 * each round read every session not yet ended and sorted them by `ended_at`: all the
 * sessions of the last half hour (the idle time), a number that grows with the traffic. On
 * the collector bench with new visitors at 1,500 requests a second, a round took 21 ms after
 * one minute, growing by as much each minute (docs/performance.md). With this index a round
 * reads only the sessions it ends. The writer's update of a session's last event already
 * wrote a new version with index entries (its updates were not HOT): this adds one entry.
 *
 * Building it reads every month of sessions once, and the writers wait for it meanwhile;
 * the collector goes on acknowledging, into the inbox, which the workers drain after.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE INDEX sessions_due_to_end_idx ON sessions (ended_at) WHERE NOT ended_notified`.execute(
    db,
  );
}
