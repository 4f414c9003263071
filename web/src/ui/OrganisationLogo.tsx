import { useState } from 'react';
import './organisation-logo.css';

// Dark enough for white letters at small sizes (contrast 5:1 or more).
const COLOURS = [
  '#1d4ed8',
  '#0f766e',
  '#b45309',
  '#6d28d9',
  '#be123c',
  '#0e7490',
  '#15803d',
  '#a21caf',
];

/** One colour per name, the same wherever it is shown. */
function colourOf(name: string): string {
  let hash = 0;
  for (const char of name) hash = (hash * 31 + (char.codePointAt(0) ?? 0)) >>> 0;
  return COLOURS[hash % COLOURS.length] as string;
}

/** "Acme Pumpen GmbH" → "AP", "Initech" → "I", "down.example" → "D". */
export function initialsOf(name: string): string {
  const words = (name.includes(' ') ? name : (name.split('.')[0] ?? name))
    .split(/[\s\-–—&+/,.]+/)
    .filter((word) => /^[\p{L}\p{N}]/u.test(word));
  return words
    .slice(0, 2)
    .map((word) => [...word][0]?.toUpperCase() ?? '')
    .join('');
}

/**
 * An organisation's logo beside its name: decorative (the name is written next to it), so
 * `alt=""`. Without a logo, or when the image does not load, its initials on a coloured disc.
 */
export function OrganisationLogo({
  name,
  logo,
  size,
}: {
  name: string;
  logo: string;
  size: 'small' | 'large';
}) {
  // The logo that failed: a new one is tried again.
  const [failed, setFailed] = useState('');
  if (logo && logo !== failed) {
    return (
      <img
        className={`org-logo ${size}`}
        src={logo}
        alt=""
        loading="lazy"
        onError={() => setFailed(logo)}
      />
    );
  }
  return (
    <span
      className={`org-logo initials ${size}`}
      style={{ background: colourOf(name) }}
      aria-hidden="true"
    >
      {initialsOf(name)}
    </span>
  );
}
