import { describe, expect, it } from 'vitest';
import { splitRange } from '../../src/stats/store.js';

describe('a stats range split into whole months and days', () => {
  it('reads whole months by month and the days either side by day', () => {
    expect(splitRange({ first: '2025-11-27', last: '2026-11-26' })).toEqual({
      months: { first: '2025-12-01', last: '2026-10-01' },
      days: [
        { first: '2025-11-27', last: '2025-11-30' },
        { first: '2026-11-01', last: '2026-11-26' },
      ],
    });
    expect(splitRange({ first: '2024-01-01', last: '2024-12-31' })).toEqual({
      months: { first: '2024-01-01', last: '2024-12-01' },
      days: [],
    });
    // February of a leap year, to its last day.
    expect(splitRange({ first: '2024-02-01', last: '2024-02-29' })).toEqual({
      months: { first: '2024-02-01', last: '2024-02-01' },
      days: [],
    });
  });

  it('reads a range of no whole month by day', () => {
    for (const range of [
      { first: '2026-04-01', last: '2026-04-29' },
      { first: '2026-04-02', last: '2026-04-30' },
      { first: '2026-03-15', last: '2026-04-14' },
      { first: '2026-04-05', last: '2026-04-05' },
    ]) {
      expect(splitRange(range)).toEqual({ months: null, days: [range] });
    }
  });
});
