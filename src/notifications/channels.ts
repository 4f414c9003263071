import { escapeHtml } from '../http/html.js';
import { digestEmailOf, digestSlackOf, isDigest } from './digest-render.js';
import type { Alert } from './render.js';
import { slackText, slackUrl } from './slack-text.js';

/**
 * How an alert reads in each channel: an e-mail (plain text and HTML that holds up in
 * common mail clients: one table, inline styles, no images or scripts) and a Slack
 * incoming-webhook message (text for notifications, blocks for the channel).
 */

const KIND_TEXT: Record<string, string> = {
  'organisation.visited': 'is visiting',
  'page.visited': 'viewed a page on',
  'segment.entered': 'entered a segment on',
};

export function headline(alert: Alert): string {
  const who = alert.organisation?.name ?? 'An organisation';
  const what = KIND_TEXT[alert.event] ?? 'was seen on';
  return `${alert.test ? '[Test] ' : ''}${who} ${what} ${alert.workspace.name}`;
}

/** What the organisation viewed: the matched page, else the session's pages (up to 10). */
export function viewed(alert: Alert): string[] {
  if (alert.url) return [alert.url];
  return [...new Set((alert.session?.views ?? []).map((view) => view.url))].slice(0, 10);
}

function details(alert: Alert): string[] {
  const lines: string[] = [];
  if (alert.organisation?.website) lines.push(`Website: ${alert.organisation.website}`);
  if (alert.segment) lines.push(`Segment: ${alert.segment.name}`);
  return lines;
}

export function emailOf(alert: Alert, unsubscribeUrl: string) {
  if (isDigest(alert)) return digestEmailOf(alert, unsubscribeUrl);
  const pages = viewed(alert);
  const subject = headline(alert);
  const text = [
    subject,
    '',
    ...details(alert),
    ...(pages.length > 0 ? ['', 'Viewed:', ...pages.map((page) => `- ${page}`)] : []),
    '',
    `Open in Footfall: ${alert.link}`,
    '',
    `You get this because of the alert "${alert.rule.name}".`,
    `Unsubscribe: ${unsubscribeUrl}`,
  ].join('\n');
  const html = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${escapeHtml(subject)}</title></head>
<body style="margin:0;padding:0;background:#f4f5f7;">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f4f5f7;">
<tr><td align="center" style="padding:24px 12px;">
<table role="presentation" width="560" cellpadding="0" cellspacing="0" style="max-width:560px;width:100%;background:#ffffff;border-radius:6px;font-family:Arial,Helvetica,sans-serif;color:#1f2933;">
<tr><td style="padding:24px 24px 8px;font-size:18px;font-weight:bold;">${escapeHtml(subject)}</td></tr>
${details(alert)
  .map((line) => `<tr><td style="padding:2px 24px;font-size:14px;">${escapeHtml(line)}</td></tr>`)
  .join('\n')}
${
  pages.length > 0
    ? `<tr><td style="padding:12px 24px 4px;font-size:14px;font-weight:bold;">Viewed</td></tr>
<tr><td style="padding:0 24px;font-size:14px;"><ul style="margin:0;padding-left:18px;">${pages
        .map((page) => `<li>${escapeHtml(page)}</li>`)
        .join('')}</ul></td></tr>`
    : ''
}
<tr><td style="padding:20px 24px;"><a href="${escapeHtml(alert.link)}" style="display:inline-block;background:#2563eb;color:#ffffff;text-decoration:none;padding:10px 16px;border-radius:4px;font-size:14px;">Open in Footfall</a></td></tr>
<tr><td style="padding:12px 24px 24px;font-size:12px;color:#6b7280;border-top:1px solid #e5e7eb;">You get this because of the alert &ldquo;${escapeHtml(alert.rule.name)}&rdquo;. <a href="${escapeHtml(unsubscribeUrl)}" style="color:#6b7280;">Unsubscribe</a></td></tr>
</table></td></tr></table></body></html>`;
  return { subject, text, html };
}

/** Slack's incoming-webhook JSON: `text` for notifications, `blocks` for the message. */
export function slackOf(alert: Alert): string {
  if (isDigest(alert)) return digestSlackOf(alert);
  const pages = viewed(alert);
  const title = headline(alert);
  const name = alert.organisation?.name ?? 'An organisation';
  const lines = [
    `*<${slackUrl(alert.link)}|${slackText(name)}>* ${slackText(title.slice(title.indexOf(name) + name.length).trim() || title)}`,
    ...details(alert).map(slackText),
    ...(pages.length > 0 ? [`Viewed: ${pages.map(slackText).join(', ')}`] : []),
  ];
  return JSON.stringify({
    text: `${title}: ${alert.link}`,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: lines.join('\n') } },
      {
        type: 'actions',
        elements: [
          {
            type: 'button',
            text: { type: 'plain_text', text: 'Open in Footfall' },
            url: alert.link,
          },
        ],
      },
    ],
  });
}
