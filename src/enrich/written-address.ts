import ipaddr from 'ipaddr.js';

// Access providers write the customer's address into its host name (host-203-0-113-7,
// p5b0c1d2e as hex, 7.113.0.203 reversed, IPv6 groups or nibbles). Such a name is a
// provider's, and the address in it must never reach evidence: it becomes `*`.

export interface MaskedName {
  /** The host name with every written-in part of the address replaced by `*`. */
  masked: string;
  /** Whether the address (three octets or more, its hex, or an IPv6 half or whole) was written in. */
  written: boolean;
}

/** The host name without the address written in it, and whether it was. */
export function maskAddress(host: string, address: string): MaskedName {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address);
  } catch {
    return { masked: host, written: false };
  }
  const lower = host.toLowerCase();
  return parsed.kind() === 'ipv4'
    ? maskIpv4(lower, (parsed as ipaddr.IPv4).octets)
    : maskIpv6(lower, (parsed as ipaddr.IPv6).parts);
}

function maskIpv4(host: string, octets: number[]): MaskedName {
  const reversed = [...octets].reverse();
  const hex = (bytes: number[]) => bytes.map((b) => b.toString(16).padStart(2, '0')).join('');
  const padded = (bytes: number[]) => bytes.map((b) => String(b).padStart(3, '0')).join('');
  let written = false;
  let masked = host;
  for (const whole of [hex(octets), hex(reversed), padded(octets), padded(reversed)]) {
    const replaced = replaceBounded(masked, whole, /[0-9a-f]/);
    if (replaced !== masked) written = true;
    masked = replaced;
  }
  const chains = maskOctetChains(masked, octets);
  return { masked: chains.masked, written: written || chains.written };
}

type NumberAt = { start: number; end: number; value: number };

/**
 * Numbers separated by one `-`, `.` or `_` that spell consecutive octets of the address, in
 * order or reversed: two or more are masked, three or more mean the address is written in.
 */
function maskOctetChains(host: string, octets: number[]): MaskedName {
  const spans: [number, number][] = [];
  let written = false;
  for (const chain of numberChains(host)) {
    let i = 0;
    while (i < chain.length) {
      const values = chain.slice(i).map((number) => number.value);
      const length = Math.max(runOf(values, octets), runOf(values, [...octets].reverse()));
      const [first, last] = [chain[i], chain[i + length - 1]];
      if (length >= 2 && first && last) {
        spans.push([first.start, last.end]);
        written ||= length >= 3;
        i += length;
      } else {
        i += 1;
      }
    }
  }
  let masked = host;
  for (const [start, end] of spans.reverse()) {
    masked = `${masked.slice(0, start)}*${masked.slice(end)}`;
  }
  return { masked, written };
}

/** Runs of numbers (of at most three digits) joined by single separators: `203-0-113-7`. */
function numberChains(host: string): NumberAt[][] {
  const chains: NumberAt[][] = [];
  let chain: NumberAt[] = [];
  for (const match of host.matchAll(/\d+/g)) {
    const number = {
      start: match.index,
      end: match.index + match[0].length,
      value: match[0].length <= 3 ? Number(match[0]) : -1,
    };
    const previous = chain.at(-1);
    const joined =
      previous && number.start - previous.end === 1 && /[-._]/.test(host[previous.end] ?? '');
    if (!joined && chain.length > 0) {
      chains.push(chain);
      chain = [];
    }
    chain.push(number);
  }
  if (chain.length > 0) chains.push(chain);
  return chains;
}

/** How many of `values`, from the first on, are consecutive entries of `octets`. */
function runOf(values: number[], octets: number[]): number {
  let best = 0;
  for (let from = 0; from < octets.length; from++) {
    let length = 0;
    while (length < values.length && values[length] === octets[from + length]) length++;
    best = Math.max(best, length);
  }
  return best;
}

function maskIpv6(host: string, parts: number[]): MaskedName {
  const groups = parts.map((part) => part.toString(16));
  const spellings = (slice: string[]): string[] => {
    const padded = slice.map((group) => group.padStart(4, '0'));
    const nibbles = padded.join('').split('');
    return [
      slice.join('-'),
      slice.join('.'),
      padded.join('-'),
      padded.join('.'),
      padded.join(''),
      nibbles.join('.'),
      [...nibbles].reverse().join('.'),
    ];
  };
  const candidates = [
    ...spellings(groups),
    new ipaddr.IPv6(parts).toRFC5952String().replace(/:/g, '-'),
    ...spellings(groups.slice(0, 4)),
    ...spellings(groups.slice(4)),
  ]
    // A spelling too short or too plain (`0-0-0-1`) would mask parts of unrelated names.
    .filter((spelling) => spelling.replace(/[-.0]/g, '').length >= 4)
    .sort((a, b) => b.length - a.length);
  let masked = host;
  let written = false;
  for (const spelling of candidates) {
    const replaced = replaceBounded(masked, spelling, /[0-9a-f]/);
    if (replaced !== masked) written = true;
    masked = replaced;
  }
  return { masked, written };
}

/** Replaces `needle` where the characters around it do not continue it. */
function replaceBounded(text: string, needle: string, continues: RegExp): string {
  let out = text;
  let from = 0;
  for (;;) {
    const at = out.indexOf(needle, from);
    if (at < 0) return out;
    const before = out[at - 1] ?? '';
    const after = out[at + needle.length] ?? '';
    if (continues.test(before) || continues.test(after)) {
      from = at + 1;
      continue;
    }
    out = `${out.slice(0, at)}*${out.slice(at + needle.length)}`;
    from = at + 1;
  }
}
