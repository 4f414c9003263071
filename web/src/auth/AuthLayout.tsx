import type { ReactNode } from 'react';
import { Logo } from '../shell/Logo';

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
