import { describe, expect, it } from 'vitest';
import { instantOf, latestPeriod } from '../../src/notifications/digest-period.js';
import { digestEmailOf, digestSlackOf } from '../../src/notifications/digest-render.js';
import type { DigestData, DigestOrganisation } from '../../src/notifications/digests.js';
import type { Alert } from '../../src/notifications/render.js';

const NY = 'America/New_York';
const iso = (date: Date) => date.toISOString();

describe('digest periods', () => {
  it('daily: the previous local day in the zone, due at 07:00 local', () => {
    // Saturday 21 November 2026, 07:05 in New York (EST, UTC-5).
    const period = latestPeriod('digest.daily', NY, new Date('2026-11-21T12:05:00Z'));
    expect(period.firstDay).toBe('2026-11-20');
    expect(period.lastDay).toBe('2026-11-20');
    expect(iso(period.start)).toBe('2026-11-20T05:00:00.000Z');
    expect(iso(period.end)).toBe('2026-11-21T05:00:00.000Z');
    expect(iso(period.sendAt)).toBe('2026-11-21T12:00:00.000Z');
    // 06:55 local: today's digest is not due yet, so the latest is the day before's.
    const early = latestPeriod('digest.daily', NY, new Date('2026-11-21T11:55:00Z'));
    expect(early.firstDay).toBe('2026-11-19');
    expect(iso(early.sendAt)).toBe('2026-11-20T12:00:00.000Z');
    // 04:30 UTC on the 21st is still the 20th in New York.
    const lateEvening = latestPeriod('digest.daily', NY, new Date('2026-11-21T04:30:00Z'));
    expect(lateEvening.firstDay).toBe('2026-11-19');
  });

  it('daily: a day with a DST change is 25 (or 23) hours long', () => {
    // Clocks went back on Sunday 1 November 2026 in New York.
    const fallBack = latestPeriod('digest.daily', NY, new Date('2026-11-02T12:30:00Z'));
    expect(fallBack.firstDay).toBe('2026-11-01');
    expect(iso(fallBack.start)).toBe('2026-11-01T04:00:00.000Z');
    expect(iso(fallBack.end)).toBe('2026-11-02T05:00:00.000Z');
    // Forward on Sunday 29 March 2026 in Amsterdam.
    const spring = latestPeriod(
      'digest.daily',
      'Europe/Amsterdam',
      new Date('2026-03-30T06:00:00Z'),
    );
    expect(spring.firstDay).toBe('2026-03-29');
    expect(spring.end.getTime() - spring.start.getTime()).toBe(23 * 3_600_000);
    expect(iso(spring.sendAt)).toBe('2026-03-30T05:00:00.000Z');
  });

  it('a local midnight that does not exist begins the day at 01:00', () => {
    // Chile moved its clocks from 00:00 to 01:00 on 6 September 2026.
    expect(iso(instantOf(Date.UTC(2026, 8, 6), 'America/Santiago'))).toBe(
      '2026-09-06T04:00:00.000Z',
    );
    // A time that exists twice (clocks back): the first of them.
    expect(iso(instantOf(Date.UTC(2026, 10, 1, 1, 30), NY))).toBe('2026-11-01T05:30:00.000Z');
  });

  it('weekly: the previous local Monday..Sunday, due on Monday at 07:00 local', () => {
    // Monday 23 November 2026, 07:05 in New York.
    const monday = latestPeriod('digest.weekly', NY, new Date('2026-11-23T12:05:00Z'));
    expect([monday.firstDay, monday.lastDay]).toEqual(['2026-11-16', '2026-11-22']);
    expect(iso(monday.start)).toBe('2026-11-16T05:00:00.000Z');
    expect(iso(monday.end)).toBe('2026-11-23T05:00:00.000Z');
    expect(iso(monday.sendAt)).toBe('2026-11-23T12:00:00.000Z');
    // Monday 06:55: the week before is still the latest.
    const early = latestPeriod('digest.weekly', NY, new Date('2026-11-23T11:55:00Z'));
    expect([early.firstDay, early.lastDay]).toEqual(['2026-11-09', '2026-11-15']);
    // Any later day of the week: the last full week.
    const sunday = latestPeriod('digest.weekly', NY, new Date('2026-11-23T04:59:00Z'));
    expect(sunday.firstDay).toBe('2026-11-09');
    const wednesday = latestPeriod('digest.weekly', NY, new Date('2026-11-25T20:00:00Z'));
    expect(wednesday.firstDay).toBe('2026-11-16');
    // The week with the clocks going back has 7 days and an hour.
    const dst = latestPeriod('digest.weekly', NY, new Date('2026-11-02T13:00:00Z'));
    expect([dst.firstDay, dst.lastDay]).toEqual(['2026-10-26', '2026-11-01']);
    expect(dst.end.getTime() - dst.start.getTime()).toBe(7 * 86_400_000 + 3_600_000);
  });

  it('weekly: in a zone east of UTC the Monday begins on Sunday in UTC', () => {
    const tokyo = latestPeriod('digest.weekly', 'Asia/Tokyo', new Date('2026-11-22T22:30:00Z'));
    // 07:30 on Monday 23 November in Tokyo.
    expect([tokyo.firstDay, tokyo.lastDay]).toEqual(['2026-11-16', '2026-11-22']);
    expect(iso(tokyo.start)).toBe('2026-11-15T15:00:00.000Z');
    expect(iso(tokyo.sendAt)).toBe('2026-11-22T22:00:00.000Z');
  });
});

const organisation = (i: number): DigestOrganisation => ({
  uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  name: i === 0 ? 'Acme <script>alert(1)</script> & Co' : `Organisation ${i}`,
  domain: `org${i}.example`,
  industry: 'Software',
  country: 'DE',
  sessions: 60 - i,
  pageviews: 100 - i,
  last_seen: '2026-11-21T04:59:40.000Z',
  score: 70 - i,
  pages: i === 1 ? ['https://site.example/pricing', 'https://site.example/<b>'] : [],
  link: `https://footfall.example/organisations/${i}?workspace=w`,
});

const alertWith = (data: DigestData): Alert => ({
  event: 'digest.daily',
  test: false,
  created_at: '2026-11-21T12:05:00.000Z',
  rule: { uuid: 'r', name: 'Morning digest' },
  workspace: { uuid: 'w', name: 'site.example', url: 'https://site.example' },
  organisation: null,
  session: null,
  url: null,
  segment: null,
  period: { start: data.period.start, end: data.period.end },
  data,
  link: data.link,
});

const data = (count: number, more: number): DigestData => ({
  digest: 'daily',
  owner: null,
  timezone: NY,
  period: {
    first_day: '2026-11-20',
    last_day: '2026-11-20',
    start: '2026-11-20T05:00:00.000Z',
    end: '2026-11-21T05:00:00.000Z',
  },
  totals: { organisations: count + more, sessions: 999, pageviews: 1999 },
  organisations: Array.from({ length: count }, (_, i) => organisation(i)),
  more,
  link: 'https://footfall.example/organisations?workspace=w',
});

describe('digest content', () => {
  it('an e-mail lists each organisation with its figures in the rule zone, escaped, and the rest counted', () => {
    const mail = digestEmailOf(alertWith(data(50, 12)), 'https://footfall.example/u/t');
    expect(mail.subject).toBe(
      'Daily digest: 62 organisations visited site.example on Friday 20 November 2026',
    );
    expect(mail.text).toContain('62 organisations, 999 sessions, 1,999 page views.');
    expect(mail.text).toContain(
      '2. Organisation 1 (org1.example)\n   score 69 · Software · Germany · 59 sessions · 99 page views · last seen Fri 23:59\n   Read: https://site.example/pricing, https://site.example/<b>\n   https://footfall.example/organisations/1?workspace=w',
    );
    expect(mail.text).toContain(
      '…and 12 more organisations: https://footfall.example/organisations?workspace=w',
    );
    expect(mail.text).toContain('Unsubscribe: https://footfall.example/u/t');
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).toContain('Acme &lt;script&gt;alert(1)&lt;/script&gt; &amp; Co');
    expect(mail.html).toContain(
      'Read: https://site.example/pricing, https://site.example/&lt;b&gt;',
    );
    expect(mail.html).not.toContain('/<b>');
    expect(mail.html.match(/<tr>\n<td/g)).toHaveLength(50);
    expect(mail.html).toContain('href="https://footfall.example/organisations/49?workspace=w"');
  });

  it('an empty period says so', () => {
    const mail = digestEmailOf(alertWith(data(0, 0)), 'https://footfall.example/u/t');
    expect(mail.subject).toBe(
      'Daily digest: no organisations visited site.example on Friday 20 November 2026',
    );
    expect(mail.text).toContain('No organisations visited in this period.');
    expect(mail.html).not.toContain('<th');
  });

  it('a weekly subject names the days', () => {
    const weekly = data(1, 0);
    weekly.digest = 'weekly';
    weekly.period.first_day = '2026-11-30';
    weekly.period.last_day = '2026-12-06';
    expect(digestEmailOf(alertWith(weekly), 'u').subject).toBe(
      'Weekly digest: 1 organisation visited site.example, Monday 30 November – Sunday 6 December 2026',
    );
  });

  it('a Slack message keeps within Slack limits (50 blocks, 3,000 characters a section)', () => {
    const message = JSON.parse(digestSlackOf(alertWith(data(50, 12))));
    expect(message.text).toContain('62 organisations visited site.example');
    expect(message.blocks.length).toBeLessThanOrEqual(50);
    const sections = message.blocks.filter((block: { type: string }) => block.type === 'section');
    for (const section of sections) expect(section.text.text.length).toBeLessThanOrEqual(3000);
    const all = sections.map((section: { text: { text: string } }) => section.text.text).join('\n');
    expect(all.split('\n')).toHaveLength(51);
    expect(all).toContain(
      '*<https://footfall.example/organisations/1?workspace=w|Organisation 1>*',
    );
    expect(all).toContain('Acme &lt;script&gt;alert(1)&lt;/script&gt; &amp; Co');
    expect(all).toContain('…and 12 more organisations');
    expect(message.blocks.at(-1).elements[0].url).toBe(
      'https://footfall.example/organisations?workspace=w',
    );
  });
});

describe('a test send of a digest rule', () => {
  it('shows a sample digest, marked as a test', () => {
    const alert = {
      ...alertWith(data(0, 0)),
      test: true,
      data: null,
      organisation: { uuid: 'o', name: 'Example Organisation (test)', website: '' },
    };
    const mail = digestEmailOf(alert, 'u');
    expect(mail.subject).toBe(
      '[Test] Daily digest: 1 organisation visited site.example on Saturday 21 November 2026',
    );
    expect(mail.text).toContain('1. Example Organisation (test) (example.com)');
  });
});
