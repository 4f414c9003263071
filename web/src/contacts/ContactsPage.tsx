/** Placeholder until this page is built. */
export function ContactsPage() {
  return <h1>Contacts</h1>;
}
