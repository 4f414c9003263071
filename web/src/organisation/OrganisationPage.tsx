/** Placeholder until this page is built. */
export function OrganisationPage() {
  return <h1>Organisation</h1>;
}
