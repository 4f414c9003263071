import { useEffect, useId, useState } from 'react';
import { useMe, useMembers } from '../api/queries';
import type { Organisation } from '../api/types';
import { ChangeFailed } from '../ui/states';
import { isStatus, type OrganisationStatus, STATUS_LABELS, STATUSES } from '../ui/status';
import { type OrganisationChange, useOrganisationChange } from './queries';

/**
 * Who in the team owns the organisation, and whether it is a lead, a customer, a competitor
 * or hidden; each saved as soon as it is chosen.
 */
export function OwnerAndStatus({
  workspace,
  organisation,
}: {
  workspace: string;
  organisation: Organisation;
}) {
  const statusHelp = useId();
  const owner = organisation.owner?.uuid ?? '';
  const status = organisation.status;
  // What was chosen shows at once; a refused change goes back to what the server has.
  const [chosen, setChosen] = useState({ owner, status });
  useEffect(() => setChosen({ owner, status }), [owner, status]);
  const [saved, setSaved] = useState<string>();
  const change = useOrganisationChange(workspace, organisation.uuid);
  function save(next: typeof chosen, body: OrganisationChange, what: string) {
    setChosen(next);
    setSaved(undefined);
    change.mutate(body, {
      onSuccess: () => setSaved(what),
      onError: () => setChosen({ owner, status }),
    });
  }

  return (
    <div className="owner-status">
      <label>
        Owner
        <select
          value={chosen.owner}
          onChange={(event) => {
            const next = event.target.value;
            save({ ...chosen, owner: next }, { owner_uuid: next || null }, 'Owner saved.');
          }}
        >
          <option value="">No owner</option>
          <MemberOptions workspace={workspace} current={organisation.owner} />
        </select>
      </label>
      <label>
        Status
        <select
          value={chosen.status}
          aria-describedby={statusHelp}
          onChange={(event) => {
            const next = event.target.value;
            if (isStatus(next))
              save({ ...chosen, status: next }, { status: next }, 'Status saved.');
          }}
        >
          {STATUSES.map((status) => (
            <option key={status} value={status}>
              {STATUS_LABELS[status]}
            </option>
          ))}
        </select>
      </label>
      <div className="owner-status-text small">
        <p id={statusHelp} className="muted">
          {statusNote(chosen.status)}
        </p>
        <span role="status">{saved}</span>
      </div>
      <ChangeFailed error={change.error} fieldFirst />
    </div>
  );
}

function statusNote(status: OrganisationStatus): string {
  return status === 'lead'
    ? 'A lead: in the lead feed, digests and alerts.'
    : 'Left out of the lead feed, digests and alerts; still tracked.';
}

/** The workspace's members, the signed-in one marked; an owner who left stays named. */
function MemberOptions({
  workspace,
  current,
}: {
  workspace: string;
  current: Organisation['owner'];
}) {
  const me = useMe().data?.uuid;
  const members = useMembers(workspace).data ?? [];
  const listed = current === null || members.some((member) => member.uuid === current.uuid);
  return (
    <>
      {[...members]
        .sort((a, b) => (a.name || a.email).localeCompare(b.name || b.email))
        .map((member) => (
          <option key={member.uuid} value={member.uuid}>
            {member.name || member.email}
            {member.uuid === me ? ' (you)' : ''}
          </option>
        ))}
      {listed ? null : <option value={current.uuid}>{current.name || current.email}</option>}
    </>
  );
}
