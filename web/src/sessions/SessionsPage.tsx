/** Placeholder until this page is built. */
export function SessionsPage() {
  return <h1>Sessions</h1>;
}
