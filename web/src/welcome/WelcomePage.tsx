import { Link, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { ApiFailure } from '../api/client';
import { useMe, useWorkspaces } from '../api/queries';
import { AuthLayout } from '../auth/AuthLayout';
import { FieldError } from '../auth/fields';
import { CopyButton } from '../ui/CopyButton';
import { ErrorState } from '../ui/states';
import { type CreatedWorkspace, useCreateWorkspace, useLoadDemo } from './queries';

/** An account's first step: a workspace for its site (snippet out), or demo data to look at. */
export function WelcomePage() {
  const me = useMe();
  const workspaces = useWorkspaces();
  const navigate = useNavigate();
  const [created, setCreated] = useState<CreatedWorkspace>();
  const create = useCreateWorkspace(setCreated);
  const demo = useLoadDemo((workspace) =>
    navigate({ to: '/w/$workspace', params: { workspace: workspace.uuid } }),
  );

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    create.mutate(String(new FormData(event.currentTarget).get('url')).trim());
  }

  if (me.error instanceof ApiFailure && me.error.status === 401) {
    void navigate({ to: '/sign-in', search: { next: '/welcome' }, replace: true });
  }
  const first = workspaces.data?.length === 0;

  if (created) {
    return (
      <AuthLayout title="Add this snippet to your site">
        <p>
          Paste it into every page of <strong>{created.name}</strong>, just before{' '}
          <code>&lt;/head&gt;</code>. Visits show up within seconds.
        </p>
        <pre className="snippet">
          <code>{created.tracking_script_snippet}</code>
        </pre>
        <div className="row">
          <CopyButton text={created.tracking_script_snippet} label="Copy snippet" />
          <Link
            className="button primary"
            to="/w/$workspace/settings"
            params={{ workspace: created.uuid }}
          >
            Check the installation
          </Link>
        </div>
      </AuthLayout>
    );
  }

  return (
    <AuthLayout title={first ? 'Welcome to Footfall' : 'New workspace'}>
      <p className="muted">
        A workspace tracks one website: which organisations visit it and what they do there.
      </p>
      <form onSubmit={submit} className="stack">
        <label className="field">
          <span>Your website's address</span>
          <input name="url" type="url" placeholder="https://www.example.com" required />
          <FieldError
            failure={create.error instanceof ApiFailure ? create.error : undefined}
            name="url"
          />
        </label>
        <button type="submit" className="button primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create workspace'}
        </button>
      </form>
      <div className="divider">or</div>
      <p className="muted">Not ready to install? Look around with made-up companies and visits.</p>
      <button
        type="button"
        className="button"
        onClick={() => demo.mutate()}
        disabled={demo.isPending}
      >
        {demo.isPending ? 'Loading demo data…' : 'Load demo data'}
      </button>
      {demo.isError ? <ErrorState what="the demo workspace" error={demo.error} /> : null}
      {!first && workspaces.data?.[0] ? (
        <p className="small">
          <Link to="/w/$workspace" params={{ workspace: workspaces.data[0].uuid }}>
            Back to the dashboard
          </Link>
        </p>
      ) : null}
    </AuthLayout>
  );
}
