// The HubSpot stand-in of the tests in a process of its own, for bench/crm-backfill.ts: so
// that the 10,000 companies it keeps do not count in the memory of the sync measured. It
// sends {url, token} once listening, and answers each 'stats' message with its figures.
import { startHubSpotStandIn } from '../../test/helpers/crm/hubspot.js';

const latencyMs = Number(process.env.STANDIN_LATENCY_MS ?? 50);
const standIn = await startHubSpotStandIn({ latencyMs });
process.send?.({ url: standIn.url, token: standIn.token });
process.on('message', (message) => {
  if (message !== 'stats') return;
  const byDomain = standIn.companiesByDomain();
  process.send?.({
    calls: standIn.calls.length,
    refused: standIn.calls.filter((call) => call.status === 429).length,
    overLimit: standIn.overLimit,
    companies: standIn.objects.companies.size,
    domains: byDomain.size,
    duplicated: [...byDomain.values()].filter((list) => list.length > 1).length,
  });
});
process.on('disconnect', () => {
  void standIn.close().then(() => process.exit(0));
});
