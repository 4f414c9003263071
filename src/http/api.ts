import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { ReadRouting } from '../db/read-routing.js';
import type { Database } from '../db/schema.js';
import type { Mailer } from '../mail/transport.js';
import type { Keys } from './keys.js';
import type { Resolver } from './outbound/address-guard.js';
import type { Tokens } from './tokens.js';

/** The Fastify instance every feature registers its routes on. */
export type Api = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** What the app needs from the outside; tests and `serve` build it the same way. */
export interface AppDeps {
  config: Config;
  /** The primary: every write, and every read not routed by `reads`. */
  db: Kysely<Database>;
  /** Where lists, exports and stats read (DATABASE_READ_URL); all from `db` when absent. */
  reads?: ReadRouting;
  keys: Keys;
  tokens: Tokens;
  /** DNS for the webhook address guard; the system's unless a test gives its own. */
  resolve?: Resolver;
  /** Sends e-mail; by default through SMTP_URL when it is set. */
  mailer?: Mailer;
  /** The digest job's clock (tests set it; the time otherwise). */
  clock?: () => Date;
}
