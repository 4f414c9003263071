/** Placeholder until this page is built. */
export function SegmentPage() {
  return <h1>Segment</h1>;
}
