/** Placeholder until this page is built. */
export function OverviewPage() {
  return <h1>Overview</h1>;
}
