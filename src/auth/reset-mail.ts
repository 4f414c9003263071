import { escapeHtml } from '../http/html.js';
import type { Mail } from '../mail/transport.js';

/** "Forgot password": the link to choose a new one, as text and as simple HTML. */
export function resetMail(reset: { to: string; link: string; hours: number }): Mail {
  const subject = 'Choose a new password for Footfall';
  const text = [
    `Someone asked to choose a new password for the Footfall account of ${reset.to}.`,
    '',
    `Choose a new password: ${reset.link}`,
    '',
    `The link works once and expires in ${reset.hours} hours. Choosing a new password signs out every other browser and ends all your API tokens.`,
    'If you did not ask for this, ignore this e-mail: your password stays as it is.',
  ].join('\n');
  const html = `<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#1f2937">
<p>Someone asked to choose a new password for the Footfall account of <strong>${escapeHtml(reset.to)}</strong>.</p>
<p><a href="${escapeHtml(reset.link)}" style="display:inline-block;padding:10px 16px;background:#1d4ed8;color:#fff;text-decoration:none;border-radius:6px">Choose a new password</a></p>
<p style="font-size:14px;color:#4b5563">Or open this link: ${escapeHtml(reset.link)}<br>It works once and expires in ${reset.hours} hours. Choosing a new password signs out every other browser and ends all your API tokens.<br>If you did not ask for this, ignore this e-mail: your password stays as it is.</p>
</body></html>`;
  return { to: reset.to, subject, text, html };
}
