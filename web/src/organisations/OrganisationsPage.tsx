/** Placeholder until this page is built. */
export function OrganisationsPage() {
  return <h1>Organisations</h1>;
}
