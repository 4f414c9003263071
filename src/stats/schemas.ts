import { Type } from '@sinclair/typebox';

const day = (description: string) =>
  Type.String({ description: `${description} (YYYY-MM-DD, UTC)`, maxLength: 32 });

export const StatsQuery = Type.Object({
  date_from: day('first day, inclusive'),
  date_to: day('last day, inclusive; at most 366 days after date_from'),
  segmentUuid: Type.Optional(
    Type.String({ maxLength: 64, description: 'only organisations in this segment' }),
  ),
});

const count = (description: string) => Type.Integer({ minimum: 0, description });

export const Stats = Type.Object(
  {
    days: Type.Array(
      Type.Object({
        date: Type.String({ format: 'date' }),
        sessions: count('attributed sessions that started this day (as the sessions list counts)'),
        organisations: count('distinct organisations with such a session'),
        pageviews: count('page views of those sessions'),
        visitors: count('distinct visitors with a stored event this day, identified or not'),
        identified_visitors: count('of them, those with a session attributed to an organisation'),
      }),
      { description: 'Every day of the range, oldest first, zero-filled.' },
    ),
    totals: Type.Object(
      {
        visitors: count('distinct visitors of the range: one who came on several days counts once'),
        identified_visitors: count('of them, those attributed to an organisation'),
        sessions: count('attributed sessions (the sum of the days’)'),
        organisations: count(
          'distinct organisations of the range (the organisations list’s total)',
        ),
        pageviews: count('page views of those sessions (the sum of the days’)'),
      },
      { description: 'The whole range; the match rate is identified_visitors of visitors.' },
    ),
    top_pages: Type.Array(
      Type.Object({
        url: Type.String(),
        pageviews: count('views of attributed sessions on the range’s days'),
      }),
      { description: 'Up to 10: the identified visitors’ views, as every other figure; see docs.' },
    ),
    top_sources: Type.Array(
      Type.Object({ source: Type.String(), sessions: count('attributed sessions') }),
      { description: 'Up to 10, by the session’s traffic source.' },
    ),
    top_industries: Type.Array(
      Type.Object({ industry: Type.String(), organisations: count('distinct organisations') }),
      { description: 'Up to 10; organisations without a known industry are left out.' },
    ),
    top_countries: Type.Array(
      Type.Object({
        country: Type.String({ description: 'the organisation’s country, as its profile has it' }),
        organisations: count('distinct organisations'),
      }),
      { description: 'Up to 10; organisations without a known country are left out.' },
    ),
    top_organisations: Type.Array(
      Type.Object({
        uuid: Type.String({ format: 'uuid' }),
        name: Type.String(),
        sessions: count('attributed sessions on the range’s days'),
        pageviews: count('their page views'),
      }),
      { description: 'Up to 10 most active organisations: most sessions, then page views.' },
    ),
  },
  { description: 'Figures of a date range, for charts (docs/api.md).' },
);
