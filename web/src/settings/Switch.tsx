/** An on/off switch: a button with the switch role, named by its label. */
export function Switch({
  label,
  checked,
  disabled,
  onChange,
  description,
}: {
  label: string;
  checked: boolean;
  disabled?: boolean;
  onChange: (checked: boolean) => void;
  description?: string;
}) {
  const id = `switch-${label.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <div className="switch-row">
      <div>
        <span id={id} style={{ fontWeight: 600 }}>
          {label}
        </span>
        {description ? <div className="muted small">{description}</div> : null}
      </div>
      <button
        type="button"
        role="switch"
        className="switch"
        aria-checked={checked}
        aria-labelledby={id}
        disabled={disabled}
        onClick={() => onChange(!checked)}
      />
    </div>
  );
}
