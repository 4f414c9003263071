import { escapeHtml } from '../http/html.js';
import { digestEmailOf, digestSlackOf, isDigest } from './digest-render.js';
import { emailPage } from './email-page.js';
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
  const html = emailPage({
    subject,
    width: 560,
    rows: `${details(alert)
      .map(
        (line) => `<tr><td style="padding:2px 24px;font-size:14px;">${escapeHtml(line)}</td></tr>`,
      )
      .join('\n')}
${
  pages.length > 0
    ? `<tr><td style="padding:12px 24px 4px;font-size:14px;font-weight:bold;">Viewed</td></tr>
<tr><td style="padding:0 24px;font-size:14px;"><ul style="margin:0;padding-left:18px;">${pages
        .map((page) => `<li>${escapeHtml(page)}</li>`)
        .join('')}</ul></td></tr>`
    : ''
}`,
    button: { href: alert.link, label: 'Open in Footfall' },
    reason: 'alert',
    ruleName: alert.rule.name,
    unsubscribeUrl,
  });
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
