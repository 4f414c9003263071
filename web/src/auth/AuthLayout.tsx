import type { ReactNode } from 'react';
import { Logo } from '../shell/Logo';
import { Loading } from '../ui/states';

/** The frame of the signed-out pages: the product's name and one card. */
export function AuthLayout({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="auth-page">
      <main className="auth-card">
        <div className="auth-brand">
          <Logo />
        </div>
        <h1>{title}</h1>
        {children}
      </main>
    </div>
  );
}

/** A signed-out page while what it shows is on its way. */
export function AuthLoading({ title, what }: { title: string; what: string }) {
  return (
    <AuthLayout title={title}>
      <Loading what={what} />
    </AuthLayout>
  );
}

/** A one-time link that no longer works: why, and the way to sign-in. */
export function DeadLink({ title, children }: { title: string; children: ReactNode }) {
  return (
    <AuthLayout title={title}>
      {children}
      <a className="button primary" href="/sign-in">
        Go to sign-in
      </a>
    </AuthLayout>
  );
}
