import { dateTime } from '../ui/format';
import { ActionsHeader, TableWrap } from '../ui/TableWrap';

export interface Delivery {
  uuid: string;
  what: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_status_code: number | null;
  last_error: string;
  created_at: string;
  next_attempt_at: string | null;
}

/** A log of outbound deliveries: what, when, how it went; `action` adds a button per row. */
export function DeliveryLog({
  label,
  deliveries,
  action,
}: {
  label: string;
  deliveries: Delivery[];
  action?: (delivery: Delivery) => React.ReactNode;
}) {
  if (deliveries.length === 0) return <p className="muted small">Nothing sent yet.</p>;
  return (
    <TableWrap label={label}>
      <table>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">What</th>
            <th scope="col">Status</th>
            <th scope="col">Answer</th>
            {action ? <ActionsHeader /> : null}
          </tr>
        </thead>
        <tbody>
          {deliveries.map((d) => (
            <tr key={d.uuid}>
              <td className="nowrap">{dateTime(d.created_at)}</td>
              <td>{d.what}</td>
              <td>
                {d.status === 'delivered'
                  ? 'Delivered'
                  : d.status === 'failed'
                    ? 'Failed'
                    : d.next_attempt_at
                      ? `Pending, next try ${dateTime(d.next_attempt_at)}`
                      : 'Pending'}
                {d.attempts > 1 ? (
                  <span className="muted small"> · {d.attempts} attempts</span>
                ) : null}
              </td>
              <td className="small">
                {d.last_status_code ? `HTTP ${d.last_status_code}` : ''} {d.last_error}
              </td>
              {action ? <td>{action(d)}</td> : null}
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}
