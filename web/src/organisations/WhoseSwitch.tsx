/** Everyone's organisations or My accounts (those the signed-in person owns). */
export function WhoseSwitch({
  mine,
  onChange,
}: {
  mine: boolean;
  onChange: (mine: boolean) => void;
}) {
  return (
    <fieldset className="segmented">
      <legend className="visually-hidden">Whose organisations</legend>
      <button type="button" aria-pressed={!mine} onClick={() => onChange(false)}>
        Everyone’s
      </button>
      <button type="button" aria-pressed={mine} onClick={() => onChange(true)}>
        My accounts
      </button>
    </fieldset>
  );
}
