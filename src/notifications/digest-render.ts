import { escapeHtml } from '../http/html.js';
import type { DigestData, DigestOrganisation } from './digests.js';
import { emailPage } from './email-page.js';
import type { Alert } from './render.js';
import { slackText, slackUrl } from './slack-text.js';

/**
 * How a digest reads: an e-mail (plain text, and HTML of one table with inline styles, no
 * images or scripts, which reads the same in Gmail, Outlook and Apple Mail) and a Slack
 * message (`text` for notifications, `blocks` for the channel). The webhook channel sends
 * the alert with its `data` (DigestData) as it is.
 */

export const isDigest = (alert: Alert) => alert.event.startsWith('digest.');

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** A calendar day (YYYY-MM-DD) as "Friday 20 November 2026", parts as asked. */
function dayLabel(day: string, parts: { month?: boolean; year?: boolean } = {}): string {
  const date = new Date(`${day}T00:00:00Z`);
  const { month = true, year = true } = parts;
  return [
    WEEKDAYS[date.getUTCDay()],
    date.getUTCDate(),
    ...(month ? [MONTHS[date.getUTCMonth()]] : []),
    ...(year ? [date.getUTCFullYear()] : []),
  ].join(' ');
}

/** "on Friday 20 November 2026", or "Monday 16 – Sunday 22 November 2026" for a week. */
export function periodLabel(data: DigestData): string {
  const { first_day: first, last_day: last } = data.period;
  if (first === last) return `on ${dayLabel(first)}`;
  const sameYear = first.slice(0, 4) === last.slice(0, 4);
  const sameMonth = sameYear && first.slice(0, 7) === last.slice(0, 7);
  return `${dayLabel(first, { month: !sameMonth, year: !sameYear })} – ${dayLabel(last)}`;
}

const countries = new Intl.DisplayNames(['en'], { type: 'region' });
function countryName(code: string): string {
  if (!/^[A-Za-z]{2}$/.test(code)) return code;
  try {
    return countries.of(code.toUpperCase()) ?? code;
  } catch {
    return code;
  }
}

const plural = (n: number, one: string, many = `${one}s`) =>
  `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

/** "Fri 23:55" in the rule's zone. */
function lastSeenLabel(instant: string, zone: string): string {
  try {
    return new Intl.DateTimeFormat('en-GB', {
      timeZone: zone,
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }).format(new Date(instant));
  } catch {
    return instant;
  }
}

/** The digest's figures; a test send (no figures) gets a sample. */
function digestData(alert: Alert): DigestData {
  const data = alert.data as DigestData | null;
  if (data && Array.isArray(data.organisations)) return data;
  const day = alert.created_at.slice(0, 10);
  const weekly = alert.event === 'digest.weekly';
  const first = weekly ? new Date(Date.parse(`${day}T00:00:00Z`) - 6 * 86_400_000) : null;
  const organisation = alert.organisation;
  return {
    digest: weekly ? 'weekly' : 'daily',
    timezone: 'UTC',
    period: {
      first_day: first ? first.toISOString().slice(0, 10) : day,
      last_day: day,
      start: alert.created_at,
      end: alert.created_at,
    },
    totals: { organisations: 1, sessions: 2, pageviews: 7 },
    organisations: [
      {
        uuid: organisation?.uuid ?? '',
        name: organisation?.name ?? 'Example Organisation (test)',
        domain: 'example.com',
        industry: String(organisation?.industry ?? ''),
        country: 'GB',
        sessions: 2,
        pageviews: 7,
        last_seen: alert.created_at,
        score: 40,
        pages: ['https://example.com/pricing'],
        link: alert.link,
      },
    ],
    owner: null,
    more: 0,
    link: alert.link,
  };
}

export function digestSubject(alert: Alert, data = digestData(alert)): string {
  const kind = `${data.digest === 'weekly' ? 'Weekly digest' : 'Daily digest'}${data.owner ? ' of my accounts' : ''}`;
  const count = data.totals.organisations;
  const who = count === 0 ? 'no organisations' : plural(count, 'organisation');
  const when = periodLabel(data);
  const separator = when.startsWith('on ') ? ' ' : ', ';
  return `${alert.test ? '[Test] ' : ''}${kind}: ${who} visited ${alert.workspace.name}${separator}${when}`;
}

function summary(data: DigestData): string {
  const { organisations, sessions, pageviews } = data.totals;
  if (organisations === 0) return 'No organisations visited in this period.';
  return `${plural(organisations, 'organisation')}, ${plural(sessions, 'session')}, ${plural(pageviews, 'page view')}. Times are in ${data.timezone}.`;
}

function facts(org: DigestOrganisation, zone: string): string[] {
  return [
    `score ${org.score}`,
    ...(org.industry ? [org.industry] : []),
    ...(org.country ? [countryName(org.country)] : []),
    plural(org.sessions, 'session'),
    plural(org.pageviews, 'page view'),
    `last seen ${lastSeenLabel(org.last_seen, zone)}`,
  ];
}

export function digestEmailOf(alert: Alert, unsubscribeUrl: string) {
  const data = digestData(alert);
  const subject = digestSubject(alert, data);
  const footer = `You get this because of the digest "${alert.rule.name}".`;
  const text = [
    subject,
    '',
    summary(data),
    ...data.organisations.flatMap((org, index) => [
      '',
      `${index + 1}. ${org.name}${org.domain && org.domain !== org.name ? ` (${org.domain})` : ''}`,
      `   ${facts(org, data.timezone).join(' · ')}`,
      ...(org.pages.length > 0 ? [`   Read: ${org.pages.join(', ')}`] : []),
      `   ${org.link}`,
    ]),
    ...(data.more > 0 ? ['', `…and ${plural(data.more, 'more organisation')}: ${data.link}`] : []),
    '',
    `All organisations in Footfall: ${data.link}`,
    '',
    footer,
    `Unsubscribe: ${unsubscribeUrl}`,
  ].join('\n');
  const cell = 'padding:8px 6px;border-bottom:1px solid #e5e7eb;font-size:13px;vertical-align:top;';
  const number = `${cell}text-align:right;white-space:nowrap;`;
  const head =
    'padding:6px;border-bottom:2px solid #d1d5db;font-size:12px;color:#6b7280;text-align:left;';
  const rows = data.organisations
    .map(
      (org) => `<tr>
<td style="${cell}"><a href="${escapeHtml(org.link)}" style="color:#1d4ed8;text-decoration:none;font-weight:bold;">${escapeHtml(org.name)}</a>${
        org.domain && org.domain !== org.name
          ? `<br><span style="color:#6b7280;font-size:12px;">${escapeHtml(org.domain)}</span>`
          : ''
      }${
        org.pages.length > 0
          ? `<br><span style="color:#6b7280;font-size:12px;">Read: ${org.pages.map(escapeHtml).join(', ')}</span>`
          : ''
      }</td>
<td style="${number}">${org.score}</td>
<td style="${cell}">${escapeHtml(org.industry)}</td>
<td style="${cell}">${escapeHtml(countryName(org.country))}</td>
<td style="${number}">${org.sessions.toLocaleString('en')}</td>
<td style="${number}">${org.pageviews.toLocaleString('en')}</td>
<td style="${number}">${escapeHtml(lastSeenLabel(org.last_seen, data.timezone))}</td>
</tr>`,
    )
    .join('\n');
  const table =
    data.organisations.length === 0
      ? ''
      : `<tr><td style="padding:8px 18px;">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="border-collapse:collapse;font-family:Arial,Helvetica,sans-serif;color:#1f2933;">
<tr><th style="${head}">Organisation</th><th style="${head}text-align:right;">Score</th><th style="${head}">Industry</th><th style="${head}">Country</th><th style="${head}text-align:right;">Sessions</th><th style="${head}text-align:right;">Page views</th><th style="${head}text-align:right;">Last seen</th></tr>
${rows}
</table></td></tr>`;
  const more =
    data.more > 0
      ? `<tr><td style="padding:8px 24px;font-size:14px;">…and ${escapeHtml(plural(data.more, 'more organisation'))}.</td></tr>`
      : '';
  const html = emailPage({
    subject,
    width: 640,
    rows: `<tr><td style="padding:2px 24px 8px;font-size:14px;">${escapeHtml(summary(data))}</td></tr>
${table}
${more}`,
    button: { href: data.link, label: 'All organisations in Footfall' },
    reason: 'digest',
    ruleName: alert.rule.name,
    unsubscribeUrl,
  });
  return { subject, text, html };
}

// Slack: a section's text holds at most 3,000 characters, a message at most 50 blocks.
const SECTION_CHARS = 2_900;

export function digestSlackOf(alert: Alert): string {
  const data = digestData(alert);
  const subject = digestSubject(alert, data);
  const lines = data.organisations.map(
    (org) =>
      `*<${slackUrl(org.link)}|${slackText(org.name)}>*${org.domain && org.domain !== org.name ? ` (${slackText(org.domain)})` : ''}: ${slackText(facts(org, data.timezone).join(' · '))}`,
  );
  if (data.more > 0) lines.push(`…and ${plural(data.more, 'more organisation')}`);
  const sections: string[] = [];
  for (const line of lines) {
    const last = sections.length - 1;
    const current = sections[last];
    if (current !== undefined && current.length + line.length + 1 <= SECTION_CHARS) {
      sections[last] = `${current}\n${line}`;
    } else sections.push(line.slice(0, SECTION_CHARS));
  }
  return JSON.stringify({
    text: `${subject}: ${data.link}`,
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: subject.slice(0, 150) } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: slackText(summary(data)) }] },
      ...sections.map((text) => ({ type: 'section', text: { type: 'mrkdwn', text } })),
      {
        type: 'actions',
        elements: [
          {
            type: 'button',
            text: { type: 'plain_text', text: 'All organisations in Footfall' },
            url: data.link,
          },
        ],
      },
    ],
  });
}
