import { useState } from 'react';

/** Copies text to the clipboard and says so where a screen reader hears it. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState<boolean | null>(null);
  return (
    <span className="copy">
      <button
        type="button"
        className="button"
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(text);
            setCopied(true);
          } catch {
            setCopied(false);
          }
          setTimeout(() => setCopied(null), 3000);
        }}
      >
        {label}
      </button>
      <span role="status" className="small muted">
        {copied === true
          ? 'Copied.'
          : copied === false
            ? 'Copy failed: select the text and copy it.'
            : ''}
      </span>
    </span>
  );
}
