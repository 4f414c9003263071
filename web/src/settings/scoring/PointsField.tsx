/** A whole number of points within the server's range, as rules and key pages take them. */
export function PointsField({
  value,
  range,
  invalid = false,
  onChange,
}: {
  value: string;
  range: { readonly min: number; readonly max: number };
  invalid?: boolean;
  onChange(value: string): void;
}) {
  return (
    <label className="points">
      Points
      <input
        type="number"
        required
        step={1}
        {...range}
        value={value}
        aria-invalid={invalid || undefined}
        onChange={(event) => onChange(event.target.value)}
      />
    </label>
  );
}
