import { randomBytes } from 'node:crypto';

/** 16 URL-safe characters from 96 random bits: not guessable, not enumerable. */
export function newTrackingScriptId(): string {
  return randomBytes(12).toString('base64url');
}

/**
 * One `<script>` tag: it defines the `footfall(...)` queue stub at once, so calls made before
 * the tracker arrives are kept, and loads the tracker asynchronously.
 */
export function trackingSnippet(baseUrl: string, trackingScriptId: string): string {
  // `<` escaped so nothing in the URL can close the script element.
  const src = JSON.stringify(`${baseUrl}/t/${trackingScriptId}.js`).replaceAll('<', '\\u003c');
  return (
    '<script>(function(w,d,u){w.footfall=w.footfall||function(){' +
    '(w.footfall.q=w.footfall.q||[]).push(arguments)};' +
    "var s=d.createElement('script');s.async=true;s.src=u;" +
    `d.head.appendChild(s)})(window,document,${src});</script>`
  );
}
