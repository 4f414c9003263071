import { useMe, useMembers } from '../api/queries';

/** "Owned by": a rule only about the organisations one member owns (contract §17). */
export function OwnerFilter({
  workspace,
  defaultValue,
}: {
  workspace: string;
  defaultValue: string;
}) {
  const me = useMe().data?.uuid;
  const members = useMembers(workspace);
  return (
    <label>
      Owned by
      <select
        name="owner"
        // The members arrive after the form: choose the rule's once they are there.
        key={members.data ? 'members' : 'loading'}
        defaultValue={defaultValue}
      >
        <option value="">Anyone (or nobody)</option>
        {(members.data ?? []).map((member) => (
          <option key={member.uuid} value={member.uuid}>
            {member.name || member.email}
            {member.uuid === me ? ' (you)' : ''}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The name of the member a rule's `filter.owner` names, for the rule's one-line summary. */
export function useOwnerName(workspace: string, owner: string | null): string | undefined {
  const members = useMembers(workspace);
  if (!owner) return undefined;
  const member = members.data?.find((m) => m.uuid === owner);
  return member ? member.name || member.email : 'a former member';
}
