import { useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { ApiFailure } from '../api/client';
import { keys } from '../api/keys';
import { signOut, useMe } from '../api/queries';
import { ErrorState } from '../ui/states';
import { AuthLayout, AuthLoading, DeadLink } from './AuthLayout';
import { NewPasswordField, PASSWORD_HINT } from './fields';
import { acceptInvite, useInvite } from './queries';

/**
 * An invite link: join with the account you are signed in as, or make one. An address that
 * already has an account joins only signed in as it (contract §12), so the page offers
 * sign-in, which comes back here.
 */
export function InvitePage() {
  const { secret } = useParams({ from: '/invite/$secret' });
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const me = useMe();
  const invite = useInvite(secret);
  const [failure, setFailure] = useState<ApiFailure>();

  async function accept(body: { name?: string; password?: string }) {
    setFailure(undefined);
    try {
      await acceptInvite(secret, body);
      queryClient.clear();
      if (invite.data) {
        await navigate({ to: '/w/$workspace', params: { workspace: invite.data.workspace.uuid } });
      }
    } catch (error) {
      setFailure(ApiFailure.from(error));
    }
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    void accept({ name: String(form.get('name') ?? ''), password: String(form.get('password')) });
  }

  async function signOutFirst() {
    await signOut();
    await queryClient.resetQueries({ queryKey: keys.me });
  }

  if (invite.isPending || me.isPending) {
    return <AuthLoading title="Join a workspace" what="the invite" />;
  }
  if (invite.isError) {
    return (
      <DeadLink title="This invite link no longer works">
        <p>It has been used or has expired (links last 7 days). Ask for a new invite.</p>
      </DeadLink>
    );
  }
  const { workspace, email, role } = invite.data;
  const intro = (
    <p>
      {email} is invited to join <strong>{workspace.name}</strong> as{' '}
      {role === 'admin' ? 'an admin' : 'a member'}.
    </p>
  );
  const problem =
    failure && !failure.body?.errors ? <ErrorState what="the invite" error={failure} /> : null;

  if (me.data?.email.toLowerCase() === email.toLowerCase()) {
    return (
      <AuthLayout title={`Join ${workspace.name}`}>
        {intro}
        <button type="button" className="button primary" onClick={() => void accept({})}>
          Join workspace
        </button>
        {problem}
      </AuthLayout>
    );
  }
  if (me.data) {
    return (
      <AuthLayout title={`Join ${workspace.name}`}>
        {intro}
        <p>
          You are signed in as {me.data.email}. To accept, sign out, then sign in as {email} or
          create its account here.
        </p>
        <button type="button" className="button primary" onClick={() => void signOutFirst()}>
          Sign out
        </button>
      </AuthLayout>
    );
  }
  // An account that exists: the answer says so (401), and only signing in as it helps.
  const accountExists = failure?.status === 401;
  return (
    <AuthLayout title={`Join ${workspace.name}`}>
      {intro}
      <div className={accountExists ? 'status-warn stack' : 'stack'}>
        {accountExists ? (
          <p className="small" role="alert">
            {email} already has an account: sign in as {email}, and you will come back here to join.
          </p>
        ) : (
          <p className="small">
            Already have a Footfall account for {email}? Sign in with it, and you will come back
            here to join.
          </p>
        )}
        <Link className="button" to="/sign-in" search={{ next: `/invite/${secret}` }}>
          Sign in as {email}
        </Link>
      </div>
      <p className="divider">or, new to Footfall</p>
      <form onSubmit={submit} className="stack">
        <label className="field">
          <span>Name</span>
          <input name="name" autoComplete="name" />
        </label>
        <NewPasswordField
          label="Password"
          failure={failure}
          hint={`Choose one for your new account. ${PASSWORD_HINT}`}
        />
        <button type="submit" className="button primary">
          Join workspace
        </button>
      </form>
      {accountExists ? null : problem}
    </AuthLayout>
  );
}
