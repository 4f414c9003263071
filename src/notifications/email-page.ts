import { escapeHtml } from '../http/html.js';

/**
 * An alert's or a digest's e-mail: the page around its rows (inline styles and layout
 * tables, which mail clients keep), one button and the footer that says why it came and
 * how to stop it. `rows` are table rows, already escaped.
 */
export function emailPage(page: {
  subject: string;
  width: number;
  rows: string;
  button: { href: string; label: string };
  reason: 'alert' | 'digest';
  ruleName: string;
  unsubscribeUrl: string;
}): string {
  const { subject, width, rows, button, reason, ruleName, unsubscribeUrl } = page;
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${escapeHtml(subject)}</title></head>
<body style="margin:0;padding:0;background:#f4f5f7;">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f4f5f7;">
<tr><td align="center" style="padding:24px 12px;">
<table role="presentation" width="${width}" cellpadding="0" cellspacing="0" style="max-width:${width}px;width:100%;background:#ffffff;border-radius:6px;font-family:Arial,Helvetica,sans-serif;color:#1f2933;">
<tr><td style="padding:24px 24px 8px;font-size:18px;font-weight:bold;">${escapeHtml(subject)}</td></tr>
${rows}
<tr><td style="padding:20px 24px;"><a href="${escapeHtml(button.href)}" style="display:inline-block;background:#2563eb;color:#ffffff;text-decoration:none;padding:10px 16px;border-radius:4px;font-size:14px;">${escapeHtml(button.label)}</a></td></tr>
<tr><td style="padding:12px 24px 24px;font-size:12px;color:#6b7280;border-top:1px solid #e5e7eb;">You get this because of the ${reason} &ldquo;${escapeHtml(ruleName)}&rdquo;. <a href="${escapeHtml(unsubscribeUrl)}" style="color:#6b7280;">Unsubscribe</a></td></tr>
</table></td></tr></table></body></html>`;
}
