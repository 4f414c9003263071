import { type FormEvent, useState } from 'react';
import { useMe, useServerInfo } from '../api/queries';
import { CopyButton } from '../ui/CopyButton';
import { dateTime } from '../ui/format';
import { ChangeFailed, Loaded } from '../ui/states';
import { ActionsHeader, TableWrap } from '../ui/TableWrap';
import { type Role, useTeam, useTeamChanges } from './queries';

/** Who is in the workspace, with which role, and who is invited. */
export function Team({ workspace }: { workspace: string }) {
  const me = useMe();
  const mail = useServerInfo().data?.mail;
  const team = useTeam(workspace);
  const [invited, setInvited] = useState<{ message: string; link: string }>();
  const { invite, setRole, remove } = useTeamChanges(workspace, setInvited);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const element = event.currentTarget;
    const form = new FormData(element);
    invite.mutate(
      {
        email: String(form.get('email')).trim(),
        role: form.get('role') === 'admin' ? 'admin' : 'member',
      },
      { onSuccess: () => element.reset() },
    );
  }
  const failure = invite.error ?? setRole.error ?? remove.error;

  return (
    <section className="card" id="team" aria-labelledby="team-heading">
      <h2 id="team-heading">Team</h2>
      <Loaded query={team} what="the team">
        {(data) => (
          <TableWrap label="Members">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Email</th>
                  <th scope="col">Role</th>
                  <ActionsHeader />
                </tr>
              </thead>
              <tbody>
                {data.data.map((member) => (
                  <tr key={member.uuid}>
                    <td>{member.name || '—'}</td>
                    <td>{member.email}</td>
                    <td>
                      <select
                        aria-label={`Role of ${member.email}`}
                        value={member.role}
                        onChange={(event) =>
                          setRole.mutate({ user: member.uuid, role: event.target.value as Role })
                        }
                      >
                        <option value="owner">Owner</option>
                        <option value="admin">Admin</option>
                        <option value="member">Member</option>
                      </select>
                    </td>
                    <td>
                      <button
                        type="button"
                        className="button small danger"
                        onClick={() => {
                          const self = member.uuid === me.data?.uuid;
                          if (
                            window.confirm(
                              self
                                ? 'Leave this workspace?'
                                : `Remove ${member.email} from this workspace?`,
                            )
                          ) {
                            remove.mutate(member.uuid);
                          }
                        }}
                      >
                        {member.uuid === me.data?.uuid ? 'Leave' : 'Remove'}
                        <span className="visually-hidden"> {member.email}</span>
                      </button>
                    </td>
                  </tr>
                ))}
                {data.invites.map((open) => (
                  <tr key={`invite-${open.email}`}>
                    <td className="muted">Invited</td>
                    <td>{open.email}</td>
                    <td>{open.role === 'admin' ? 'Admin' : 'Member'}</td>
                    <td className="muted small">until {dateTime(open.expires_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
      </Loaded>
      <form className="inline-form subsection" onSubmit={submit}>
        <label>
          Invite by email
          <input name="email" type="email" required placeholder="colleague@company.com" />
        </label>
        <label>
          Invite role
          <select name="role" defaultValue="member">
            <option value="member">Member</option>
            <option value="admin">Admin</option>
          </select>
        </label>
        <button type="submit" className="button primary" disabled={invite.isPending}>
          {mail === false ? 'Create invite link' : 'Send invite'}
        </button>
      </form>
      {mail === false ? (
        <p className="muted small">
          This server sends no e-mail (<code>SMTP_URL</code> is not set): you get a link to pass on
          to your colleague yourself.
        </p>
      ) : null}
      {invited ? (
        <div className="secret-once" role="status">
          <p>{invited.message}</p>
          {/share/i.test(invited.message) ? (
            <>
              <code>{invited.link}</code>
              <CopyButton text={invited.link} label="Copy invite link" />
            </>
          ) : null}
        </div>
      ) : null}
      <ChangeFailed error={failure} fieldFirst />
    </section>
  );
}
