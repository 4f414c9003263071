import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/**
 * What others must do when custom fields change, given by app.ts (segments evaluate
 * conditions on fields and values): custom-fields/ tells, it does not know who listens.
 */
export interface CustomFieldListeners {
  /** A field of the workspace was deleted: what named it must be computed again. */
  fieldsChanged(db: Kysely<Database>, workspaceId: string): Promise<void>;
  /** Values of these organisations changed, inside the transaction that changed them. */
  valuesChanged(
    trx: Kysely<Database>,
    workspaceId: string,
    organisationIds: string[],
  ): Promise<unknown>;
}
