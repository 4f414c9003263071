import { defineConfig } from 'vitest/config';

// Three projects: `core` (the API, the collector, the database, in this process),
// `processes` (`*.process.test.ts`: tests that spawn Footfall's CLI or server, restart a
// PostgreSQL of their own or build the app; slow, one file at a time is plenty) and
// `dashboard` (the web dashboard driven in Chromium). `npm test` runs all three; CI's second
// pass, on the machine's PostgreSQL instead of the embedded one, runs `core` and `processes`
// (the dashboard's pages do not depend on which PostgreSQL answers). Tests mirror src/:
// test/<folder>/ holds the tests of src/<folder>/.
// The timeouts catch a hung test, they are not a speed check: with a benchmark running beside
// the suite on two cores, a test of real processes, PostgreSQL and Chromium takes several
// times as long as on a quiet machine. Tests that do assert a duration say so themselves.
const shared = { pool: 'forks', testTimeout: 120_000, hookTimeout: 240_000 } as const;

export default defineConfig({
  test: {
    // Most of a test's time is spent waiting (on PostgreSQL, Chromium, a receiver, a timer),
    // so three files at once on two cores finish in about half the time of Vitest's default
    // here (cores - 1, i.e. one at a time); the deadlines above leave room for it.
    maxWorkers: 3,
    globalSetup: ['test/global-setup.ts'],
    reporters: ['default', './test/summary-reporter.ts'],
    projects: [
      {
        test: {
          ...shared,
          name: 'core',
          // Files share a worker's modules instead of importing the app again each (about
          // 3 s a file, most of what the short files took); they share no state besides.
          isolate: false,
          include: ['test/**/*.test.ts'],
          exclude: ['test/web/**', 'test/**/*.process.test.ts'],
        },
      },
      {
        test: {
          ...shared,
          name: 'processes',
          include: ['test/**/*.process.test.ts'],
          // A test that starts the CLI several times (identification mend: 27 s alone) took
          // over 120 s beside the rest of the suite on a slower machine of the same kind.
          testTimeout: 240_000,
        },
      },
      {
        test: {
          ...shared,
          name: 'dashboard',
          include: ['test/web/**/*.test.ts'],
          testTimeout: 180_000,
          // What a browser shows can take a while on a busy machine.
          expect: { poll: { timeout: 30_000 } },
        },
      },
    ],
  },
});
