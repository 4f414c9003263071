/** The options of a select for the workspace's segments, as listed; none while they load. */
export function SegmentOptions({
  segments,
}: {
  segments: { uuid: string; name: string }[] | undefined;
}) {
  return (
    <>
      {segments?.map((segment) => (
        <option key={segment.uuid} value={segment.uuid}>
          {segment.name}
        </option>
      ))}
    </>
  );
}
