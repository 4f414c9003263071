/** Where a delivery stands, as every subscriber's delivery log shows it. */
export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** The attempt columns every subscriber's deliveries table has (db/schema.ts). */
interface Attempts {
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string;
  next_attempt_at: Date;
  created_at: Date;
  delivered_at: Date | null;
}

/** A delivery's attempts as the API shows them, the same for every subscriber. */
export function presentAttempts(row: Attempts) {
  return {
    status: row.status as DeliveryStatus,
    attempts: row.attempts,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    next_attempt_at: row.status === 'pending' ? row.next_attempt_at.toISOString() : null,
    created_at: row.created_at.toISOString(),
    delivered_at: row.delivered_at?.toISOString() ?? null,
  };
}
