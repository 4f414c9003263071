import { type FormEvent, useState } from 'react';
import { CopyButton } from '../ui/CopyButton';
import { dateTime } from '../ui/format';
import { ChangeFailed, Loaded } from '../ui/states';
import { ActionsHeader, TableWrap } from '../ui/TableWrap';
import { useTokenChanges, useTokens } from './queries';

/** The signed-in person's API tokens: made with an expiry, shown once, revoked. */
export function Tokens() {
  const tokens = useTokens();
  const [made, setMade] = useState<{ name: string; token: string }>();
  const { create, revoke } = useTokenChanges((token) =>
    setMade({ name: token.name, token: token.token }),
  );

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const element = event.currentTarget;
    const form = new FormData(element);
    const days = Number(form.get('expiry'));
    create.mutate(
      {
        name: String(form.get('name')).trim(),
        expires_in_days: days > 0 ? days : null,
      },
      { onSuccess: () => element.reset() },
    );
  }
  const failure = create.error ?? revoke.error;

  return (
    <section className="card" id="api-tokens" aria-labelledby="tokens-heading">
      <h2 id="tokens-heading">API tokens</h2>
      <p className="muted small">
        Tokens let scripts and other systems use the API as you (
        <code>Authorization: Bearer …</code>). They are yours, across all your workspaces.
      </p>
      <form className="inline-form" onSubmit={submit}>
        <label>
          Token name
          <input name="name" required maxLength={100} placeholder="e.g. CRM sync" />
        </label>
        <label>
          Expires
          <select name="expiry" defaultValue="90">
            <option value="30">in 30 days</option>
            <option value="90">in 90 days</option>
            <option value="365">in a year</option>
            <option value="0">never</option>
          </select>
        </label>
        <button type="submit" className="button primary" disabled={create.isPending}>
          Create token
        </button>
      </form>
      {made ? (
        <div className="secret-once" role="status">
          <strong>Your new token “{made.name}”.</strong> Copy it now: you will not see it again.
          <code>{made.token}</code>
          <CopyButton text={made.token} label="Copy token" />{' '}
          <button type="button" className="button quiet small" onClick={() => setMade(undefined)}>
            Done
          </button>
        </div>
      ) : null}
      <ChangeFailed error={failure} />
      <Loaded query={tokens} what="tokens">
        {(data) =>
          data.length === 0 ? (
            <p className="muted small">No tokens yet.</p>
          ) : (
            <TableWrap label="Your tokens">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Created</th>
                    <th scope="col">Expires</th>
                    <ActionsHeader />
                  </tr>
                </thead>
                <tbody>
                  {data.map((token) => (
                    <tr key={token.uuid}>
                      <td>{token.name}</td>
                      <td>{dateTime(token.created_at)}</td>
                      <td>
                        {token.expires_at === null
                          ? 'Never'
                          : Date.parse(token.expires_at) < Date.now()
                            ? `Expired ${dateTime(token.expires_at)}`
                            : dateTime(token.expires_at)}
                      </td>
                      <td>
                        <button
                          type="button"
                          className="button small danger"
                          aria-label={`Revoke ${token.name}`}
                          onClick={() => {
                            if (
                              window.confirm(
                                `Revoke “${token.name}”? Anything using it stops working at once.`,
                              )
                            ) {
                              revoke.mutate(token.uuid);
                            }
                          }}
                        >
                          Revoke
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )
        }
      </Loaded>
    </section>
  );
}
