import { useQueryClient } from '@tanstack/react-query';
import { Link, Outlet, useNavigate, useParams, useRouterState } from '@tanstack/react-router';
import { useEffect } from 'react';
import { ApiFailure, onSignedOut } from '../api/client';
import { signOut, useMe, useWorkspaces } from '../api/queries';
import { ErrorState, Loading } from '../ui/states';
import { rememberWorkspace } from './HomeRedirect';
import { Logo } from './Logo';

const SECTIONS = [
  { to: '/w/$workspace', label: 'Overview', exact: true },
  { to: '/w/$workspace/organisations', label: 'Organisations', exact: false },
  { to: '/w/$workspace/sessions', label: 'Sessions', exact: false },
  { to: '/w/$workspace/segments', label: 'Segments', exact: false },
  { to: '/w/$workspace/contacts', label: 'Contacts', exact: false },
  { to: '/w/$workspace/settings', label: 'Settings', exact: false },
] as const;

/** The signed-in frame: navigation, the workspace switcher and sign-out around a page. */
export function AppShell() {
  const { workspace } = useParams({ from: '/w/$workspace' });
  const me = useMe();
  const navigate = useNavigate();
  const href = useRouterState({ select: (state) => state.location.href });
  const goToSignIn = useSignInRedirect();

  useEffect(() => rememberWorkspace(workspace), [workspace]);
  useEffect(() => onSignedOut(() => goToSignIn(href)), [goToSignIn, href]);
  useEffect(() => {
    if (me.error instanceof ApiFailure && me.error.status === 401) goToSignIn(href);
  }, [me.error, goToSignIn, href]);

  if (me.isPending) return <Loading what="your account" />;
  if (me.isError)
    return <ErrorState what="your account" error={me.error} retry={() => void me.refetch()} />;

  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/" className="brand" aria-label="Footfall home">
          <Logo />
        </Link>
        <WorkspaceSwitcher
          current={workspace}
          onChange={(uuid) =>
            uuid === 'new'
              ? void navigate({ to: '/welcome' })
              : void navigate({ to: '/w/$workspace', params: { workspace: uuid } })
          }
        />
        <div className="account">
          <span className="muted small account-name" title={me.data.email}>
            {me.data.name || me.data.email}
          </span>
          <SignOutButton />
        </div>
      </header>
      <nav className="sections" aria-label="Sections">
        <ul>
          {SECTIONS.map((section) => (
            <li key={section.to}>
              <Link
                to={section.to}
                params={{ workspace }}
                activeOptions={{ exact: section.exact, includeSearch: false }}
                activeProps={{ 'aria-current': 'page', className: 'active' }}
              >
                {section.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" className="content" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}

function WorkspaceSwitcher({
  current,
  onChange,
}: {
  current: string;
  onChange: (uuid: string) => void;
}) {
  const workspaces = useWorkspaces();
  return (
    <label className="switcher">
      <span className="visually-hidden">Workspace</span>
      <select
        aria-label="Workspace"
        value={current}
        onChange={(event) => onChange(event.target.value)}
        disabled={!workspaces.data}
      >
        {workspaces.data?.some((w) => w.uuid === current) ? null : (
          <option value={current}>…</option>
        )}
        {workspaces.data?.map((w) => (
          <option key={w.uuid} value={w.uuid}>
            {w.name}
          </option>
        ))}
        <option value="new">+ New workspace…</option>
      </select>
    </label>
  );
}

function SignOutButton() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  return (
    <button
      type="button"
      className="button quiet"
      onClick={async () => {
        await signOut();
        queryClient.clear();
        await navigate({ to: '/sign-in', search: { next: undefined } });
      }}
    >
      Sign out
    </button>
  );
}

/** Sends a signed-out person to sign-in, coming back here afterwards. */
export function useSignInRedirect() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  return (next: string) => {
    queryClient.clear();
    void navigate({ to: '/sign-in', search: { next }, replace: true });
  };
}
