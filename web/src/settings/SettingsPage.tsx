/** Placeholder until this page is built. */
export function SettingsPage() {
  return <h1>Settings</h1>;
}
