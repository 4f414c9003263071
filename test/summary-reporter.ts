import type { Reporter, SerializedError, TestModule } from 'vitest/node';

/**
 * Ends every run with one plain line, `Summary: N passed, N failed, N skipped`, for CI logs;
 * and, when a file failed outside its tests (a hook, an import) or an error went unhandled,
 * how many, since those fail the run without failing a test.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(
    modules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
  ): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    let filesFailed = 0;
    for (const module of modules) {
      if (module.errors().length > 0) filesFailed++;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed++;
        else if (state === 'failed') counts.failed++;
        else counts.skipped++;
      }
    }
    const outside = [
      filesFailed ? `${filesFailed} files failed outside their tests` : '',
      unhandledErrors.length ? `${unhandledErrors.length} unhandled errors` : '',
    ].filter(Boolean);
    process.stdout.write(
      `\nSummary: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped${outside.length ? `; ${outside.join(', ')}` : ''}\n`,
    );
  }
}
