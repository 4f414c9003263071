import { type ChangeEvent, type FormEvent, useId, useState } from 'react';
import { useIsAdmin } from '../api/queries';
import { count } from '../ui/format';
import { ChangeFailed, Loaded } from '../ui/states';
import { domainsInFile, linesOf, MAX_EXCLUDED_DOMAINS, merged } from './domain-list';
import { useExcludedDomains, useExcludedDomainsSave } from './queries';

/**
 * Domains whose organisations are hidden: your own, your customers'. Pasted one a line or
 * read from a .txt or .csv file; saving says how many organisations it hid or brought back.
 */
export function ExcludedDomains({ workspace }: { workspace: string }) {
  const domains = useExcludedDomains(workspace);
  const admin = useIsAdmin(workspace);
  const save = useExcludedDomainsSave(workspace);
  return (
    <section className="card" id="excluded-domains" aria-labelledby="excluded-domains-heading">
      <h2 id="excluded-domains-heading">Excluded domains</h2>
      <p className="muted small">
        Your own company, your customers: organisations of these domains (and their subdomains) are
        hidden, now and whenever they visit, so they stay out of the lead feed, digests and alerts.
        They are still tracked, and taking a domain off the list brings them back.
      </p>
      {admin === false ? (
        <p className="status-warn small">Only admins can change the excluded domains.</p>
      ) : null}
      <Loaded query={domains} what="the excluded domains">
        {(data) => (
          // What the server stored (each as its registrable domain) replaces what was typed.
          <DomainsForm
            key={data.domains.join('\n')}
            saved={data.domains}
            editable={admin === true}
            pending={save.isPending}
            onSave={(list) => save.mutate(list)}
          />
        )}
      </Loaded>
      <p role="status" className="muted small">
        {save.data ? savedText(save.data) : ''}
      </p>
      <ChangeFailed error={save.error} fieldFirst />
    </section>
  );
}

/** "Saved 12 domains: 3 organisations hidden, 1 brought back." */
function savedText(answer: { domains: string[]; hidden: number; shown: number }): string {
  const hidden = count(answer.hidden, 'organisation');
  return `Saved ${count(answer.domains.length, 'domain')}: ${hidden} hidden, ${answer.shown.toLocaleString('en')} brought back.`;
}

function DomainsForm({
  saved,
  editable,
  pending,
  onSave,
}: {
  saved: string[];
  editable: boolean;
  pending: boolean;
  onSave: (domains: string[]) => void;
}) {
  const help = useId();
  const [text, setText] = useState(saved.join('\n'));
  const [read, setRead] = useState('');
  const entries = linesOf(text);
  const tooMany = entries.length > MAX_EXCLUDED_DOMAINS;

  async function upload(event: ChangeEvent<HTMLInputElement>) {
    const input = event.currentTarget;
    const file = input.files?.[0];
    if (!file) return;
    const found = domainsInFile(await file.text());
    setText(merged(linesOf(text), found).join('\n'));
    setRead(`Read ${count(found.length, 'domain')} from ${file.name}: save to apply them.`);
    // The same file chosen again is read again.
    input.value = '';
  }
  function submit(event: FormEvent) {
    event.preventDefault();
    if (!tooMany) onSave(entries);
  }

  return (
    <form className="stack" onSubmit={submit}>
      <label className="field">
        <span>Excluded domains</span>
        <textarea
          value={text}
          rows={6}
          readOnly={!editable}
          spellCheck={false}
          placeholder={'yourcompany.com\nbigcustomer.com'}
          aria-describedby={help}
          onChange={(event) => setText(event.target.value)}
        />
        <small id={help} className="muted">
          One domain a line (a web address will do); {count(entries.length, 'domain')}, up to{' '}
          {MAX_EXCLUDED_DOMAINS.toLocaleString('en')}.
        </small>
      </label>
      {editable ? (
        <>
          <label className="field">
            <span>Add from a file (.txt or .csv)</span>
            <input
              className="file-input"
              type="file"
              accept=".txt,.csv,text/plain,text/csv"
              onChange={upload}
            />
          </label>
          <p role="status" className="muted small" style={{ margin: 0 }}>
            {read}
          </p>
          {tooMany ? (
            <p className="form-error" role="alert">
              That is more than {MAX_EXCLUDED_DOMAINS.toLocaleString('en')} domains.
            </p>
          ) : null}
          <div>
            <button type="submit" className="button" disabled={pending || tooMany}>
              Save excluded domains
            </button>
          </div>
        </>
      ) : null}
    </form>
  );
}
