import { Link } from '@tanstack/react-router';

export function NotFoundPage() {
  return (
    <main className="content narrow">
      <h1>Page not found</h1>
      <p>This address does not lead to a page of the dashboard.</p>
      <Link to="/" className="button primary">
        Go to the dashboard
      </Link>
    </main>
  );
}
