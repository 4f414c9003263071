import { type Static, Type } from '@sinclair/typebox';
import { presentAttempts } from '../outbox/present.js';
import { PING_WORKSPACE } from './body.js';
import type { DeliveryRecord } from './outbox.js';

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

export const DeliveryStatusSchema = Type.Union([
  Type.Literal('pending'),
  Type.Literal('delivered'),
  Type.Literal('failed'),
]);
export type DeliveryStatus = Static<typeof DeliveryStatusSchema>;

/** A delivery as the deliveries log, the test ping and a redelivery show it. */
export const DeliverySchema = Type.Object(
  {
    uuid: Type.String({
      format: 'uuid',
      description: 'the X-Footfall-Delivery header, the same on every retry and redelivery',
    }),
    event: Type.String({ description: 'the kind, or `ping` for a test delivery' }),
    workspace_uuid: nullable(Type.String({ format: 'uuid', description: 'null for a ping' })),
    status: DeliveryStatusSchema,
    attempts: Type.Integer({ description: 'attempts in the current round' }),
    last_status_code: nullable(Type.Integer()),
    last_error: Type.String(),
    next_attempt_at: nullable(Type.String()),
    created_at: Type.String(),
    delivered_at: nullable(Type.String()),
    redeliveries: Type.Integer({ description: 'how many times it was asked to be sent again' }),
    redelivered_at: nullable(Type.String({ description: 'when it was last asked for again' })),
  },
  { title: 'WebhookDelivery' },
);

export function presentDelivery(row: DeliveryRecord) {
  return {
    uuid: row.id,
    event: row.event,
    workspace_uuid: row.workspace_id === PING_WORKSPACE ? null : row.workspace_id,
    ...presentAttempts(row),
    redeliveries: row.redeliveries,
    redelivered_at: row.redelivered_at?.toISOString() ?? null,
  };
}
