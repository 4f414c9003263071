import { domainLabel, sameName } from './names.js';
import type { Named, Signal, SignalEvidence, SignalName } from './signals.js';

// Which signal names the organisation (contract §16). A signal with verdict `organisation`
// names on its own; `weak` ones name only when a second signal agrees; provider, person,
// unconfirmed and none never name anyone (and providers never become organisations), and a
// `person` keeps every other signal from naming.

/** Registration data says who holds the network; a PTR name is the holder's own choice. */
const PRECEDENCE: SignalName[] = ['registration', 'reverse_dns', 'network_owner'];

const naming = (signal: Signal) => signal.verdict === 'organisation' || signal.verdict === 'weak';

/**
 * Two signals name the same organisation when their domains are equal, or when the one's name
 * matches the other's name or domain label (legal forms, case, accents and hyphens aside:
 * "ACME GmbH" = "acme-gmbh" = acme-gmbh.de).
 */
export function agree(a: Signal, b: Signal): boolean {
  if (a.domain && a.domain === b.domain) return true;
  const names = (signal: Signal) =>
    [signal.name, signal.domain && domainLabel(signal.domain)].filter((name): name is string =>
      Boolean(name),
    );
  return names(a).some((left) => names(b).some((right) => sameName(left, right)));
}

/**
 * What the signals together name, or null. An `organisation` signal names (registration
 * before reverse DNS before network owner); when two of them name different domains, the one
 * another signal agrees with wins, else the earlier. Without one, two `weak` signals of
 * different sources that agree name the organisation. `domain` is '' when the agreeing
 * signals name none (the caller keys such an organisation by its name). Nobody is named when
 * a signal says the network is a private person's. Evidence carries every signal consulted.
 */
export function decide(signals: Signal[]): Named | null {
  // A network registered to a private person: whatever else names a domain there (a PTR
  // name of the person's own) would name the person.
  if (signals.some((signal) => signal.verdict === 'person')) return null;
  const evidence: SignalEvidence[] = signals.map(({ signal, value, verdict }) => ({
    signal,
    value,
    verdict,
  }));
  const ordered = [...signals].sort(
    (a, b) => PRECEDENCE.indexOf(a.signal) - PRECEDENCE.indexOf(b.signal),
  );
  const supporters = (chosen: Signal) =>
    ordered.filter((other) => other !== chosen && naming(other) && agree(chosen, other));
  const strong = ordered.filter((signal) => signal.verdict === 'organisation');
  const chosen =
    strong.find((signal) => supporters(signal).length > 0) ??
    strong[0] ??
    ordered.find((signal) => signal.verdict === 'weak' && hasOtherSource(signal, supporters));
  if (!chosen) return null;
  const backing = supporters(chosen);
  const domain = chosen.domain ?? backing.find((other) => other.domain)?.domain ?? '';
  const name = chosen.name ?? backing.find((other) => other.name)?.name ?? domain;
  if (!domain && !name) return null;
  return { domain, name, method: chosen.signal, signals: evidence };
}

/** A weak signal names only with a signal of another source behind it. */
function hasOtherSource(signal: Signal, supporters: (chosen: Signal) => Signal[]): boolean {
  return supporters(signal).some((other) => other.signal !== signal.signal);
}
