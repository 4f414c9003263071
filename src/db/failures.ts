import { setTimeout as sleep } from 'node:timers/promises';

/**
 * What a failed write says about itself, by PostgreSQL's SQLSTATE (appendix A of its manual):
 * whether doing it again can succeed, and whether one part of it may be what is wrong.
 */
export type WriteFailure =
  /** 40P01: PostgreSQL broke a lock cycle; the same write again normally succeeds. */
  | 'deadlock'
  /** 40001: a concurrent transaction won; the same write again normally succeeds. */
  | 'serialization'
  /** Class 22: a value the column cannot hold. */
  | 'data'
  /** Class 23: a value a constraint refuses. */
  | 'constraint'
  /** The database cannot be reached or gave up (connection, resources, shutdown, timeout). */
  | 'unavailable'
  /** Anything else: a statement PostgreSQL refused for another reason, or a bug of ours. */
  | 'other';

// Classes that say nothing about the data written: 08 connection, 53 resources,
// 57 operator intervention (shutdown, statement timeout), 58 system.
const UNAVAILABLE = new Set(['08', '53', '57', '58']);

/** The error's SQLSTATE when PostgreSQL gave one (the driver's own errors carry none). */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

export function writeFailure(error: unknown): WriteFailure {
  const code = sqlState(error);
  if (code === undefined) {
    // Our own TypeError or RangeError may come from one request's data; the driver's own
    // errors (a lost connection, a pool timeout) carry no SQLSTATE.
    return error instanceof TypeError || error instanceof RangeError ? 'other' : 'unavailable';
  }
  if (code === '40P01') return 'deadlock';
  if (code === '40001') return 'serialization';
  const kind = code.slice(0, 2);
  if (kind === '22') return 'data';
  if (kind === '23') return 'constraint';
  return UNAVAILABLE.has(kind) ? 'unavailable' : 'other';
}

/** Transient: the same write may simply be done again. */
export const isTransient = (failure: WriteFailure) =>
  failure === 'deadlock' || failure === 'serialization';

/**
 * Runs `write` again after a deadlock or a serialization failure, up to `tries` times in all,
 * with a growing random pause: the other transaction finishes meanwhile.
 */
export async function againIfTransient<T>(write: () => Promise<T>, tries = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (attempt >= tries || !isTransient(writeFailure(error))) throw error;
      await sleep(Math.random() * 20 * 2 ** attempt);
    }
  }
}

/** Part of the write may be at fault, so writing its parts apart can save the others. */
export const mayBeInTheData = (failure: WriteFailure) =>
  failure === 'data' || failure === 'constraint' || failure === 'other';

// 08: the connection failed or broke; 57P01-57P03: the server is shutting down, crashed, or
// cannot take connections yet (starting, recovering). Every query meets these in an outage.
const UNREACHABLE_STATES = /^(08...|57P0[123])$/;
// Node's socket errors on the way to the server (with the system call that met them: a
// client that aborts its own request also gives ECONNRESET, without one).
const SOCKET_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
// What pg and pg-pool say, without a code, of a connection that ended or never came.
const DRIVER_WORDS =
  /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect)/;

/**
 * Whether `error` says the database cannot be reached right now (a restart, a failover, a
 * network fault), rather than that a statement or our code is wrong: the caller answers 503
 * and tries again later, and nothing about the request itself is at fault.
 */
export function isDatabaseUnreachable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code, syscall } = error as { code?: unknown; syscall?: unknown };
  if (typeof code === 'string' && UNREACHABLE_STATES.test(code)) return true;
  if (typeof code === 'string' && typeof syscall === 'string' && SOCKET_ERRORS.has(code)) {
    return true;
  }
  // Node tries each address of a name in turn and reports them all together.
  if (error instanceof AggregateError) return error.errors.some(isDatabaseUnreachable);
  return DRIVER_WORDS.test(error.message);
}
