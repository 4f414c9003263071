import { escapeHtml } from '../http/html.js';
import type { Mail } from '../mail/transport.js';

/** The invite e-mail: a plain-text part and a simple HTML part with the same link. */
export function inviteMail(invite: {
  to: string;
  workspaceName: string;
  inviterName: string;
  link: string;
  days: number;
}): Mail {
  const who = invite.inviterName || 'A colleague';
  const subject = `${who} invited you to ${invite.workspaceName} on Footfall`;
  const text = [
    `${who} invited you to join the workspace "${invite.workspaceName}" on Footfall,`,
    'where you can see which organisations visit the website and what they do there.',
    '',
    `Accept the invite: ${invite.link}`,
    '',
    `The link works once and expires in ${invite.days} days. If you did not expect it, ignore this e-mail.`,
  ].join('\n');
  const html = `<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#1f2937">
<p>${escapeHtml(who)} invited you to join the workspace <strong>${escapeHtml(invite.workspaceName)}</strong> on Footfall, where you can see which organisations visit the website and what they do there.</p>
<p><a href="${escapeHtml(invite.link)}" style="display:inline-block;padding:10px 16px;background:#1d4ed8;color:#fff;text-decoration:none;border-radius:6px">Accept the invite</a></p>
<p style="font-size:14px;color:#4b5563">Or open this link: ${escapeHtml(invite.link)}<br>It works once and expires in ${invite.days} days. If you did not expect it, ignore this e-mail.</p>
</body></html>`;
  return { to: invite.to, subject, text, html };
}
