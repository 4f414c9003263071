/** Placeholder until this page is built. */
export function SegmentsPage() {
  return <h1>Segments</h1>;
}
