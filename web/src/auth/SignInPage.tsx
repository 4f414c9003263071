import { useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useSearch } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { useServerInfo } from '../api/queries';
import { AuthLayout } from './AuthLayout';
import { signIn } from './queries';

export function SignInPage() {
  const { next } = useSearch({ from: '/sign-in' });
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  // Whether "Forgot password?" can mail a link, or the person must ask for one.
  const server = useServerInfo();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(undefined);
    try {
      const { response, error: body } = await signIn({
        email: String(form.get('email')),
        password: String(form.get('password')),
      });
      if (!response.ok) {
        setError(
          response.status === 429
            ? ((body as { message?: string } | undefined)?.message ??
                'Too many attempts; try again later.')
            : 'That email and password do not match an account.',
        );
        return;
      }
      queryClient.clear();
      // Only a path on this site: a crafted ?next= must not send anyone elsewhere.
      const target = next?.startsWith('/') && !next.startsWith('//') ? next : '/';
      await navigate({ to: target });
    } catch {
      setError('The server could not be reached. Check your connection and try again.');
    } finally {
      setBusy(false);
    }
  }

  return (
    <AuthLayout title="Sign in to Footfall">
      <form onSubmit={submit} className="stack" noValidate={false}>
        <label className="field">
          <span>Email</span>
          <input name="email" type="email" autoComplete="username" required />
        </label>
        <label className="field">
          <span>Password</span>
          <input name="password" type="password" autoComplete="current-password" required />
        </label>
        {error ? (
          <p className="form-error" role="alert">
            {error}
          </p>
        ) : null}
        <button type="submit" className="button primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      {server.data?.mail ? (
        <p className="small">
          <Link to="/forgot">Forgot password?</Link>
        </p>
      ) : server.data ? (
        <p className="muted small">
          Forgot your password? Ask an owner of your workspace, or whoever runs this server, for a
          reset link (<code>npx --no footfall users reset-link --email you@example.com</code>).
        </p>
      ) : null}
    </AuthLayout>
  );
}
