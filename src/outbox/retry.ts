/** An attempt's outcome: the receiver's status (null when none came) and what went wrong. */
export interface Outcome {
  status: number | null;
  error: string;
}

/**
 * What an attempt's outcome makes of a delivery, the same for every outbox: delivered on
 * 2xx (an SMTP server's 250 too), else retried after `schedule[attempts - 1]` seconds, or
 * failed once the schedule is spent.
 */
export function settle(outcome: Outcome, attempts: number, schedule: number[]) {
  if (outcome.status !== null && outcome.status >= 200 && outcome.status < 300) {
    return {
      status: 'delivered',
      last_status_code: outcome.status,
      last_error: '',
      delivered_at: new Date(),
    };
  }
  const error = outcome.error || `answered ${outcome.status}`;
  const delay = schedule[attempts - 1];
  if (delay === undefined) {
    return { status: 'failed', last_status_code: outcome.status, last_error: error };
  }
  return {
    last_status_code: outcome.status,
    last_error: error,
    next_attempt_at: new Date(Date.now() + delay * 1000),
  };
}
