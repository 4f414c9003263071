import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import ipaddr from 'ipaddr.js';

/** An IPv6 address as four 32-bit words, most significant first. */
type Words = [number, number, number, number];

/** Grows like an array, stores like a typed array. */
class Column {
  data: Uint32Array;
  length = 0;
  constructor(capacity: number) {
    this.data = new Uint32Array(Math.max(16, capacity));
  }
  push(value: number): void {
    if (this.length === this.data.length) {
      const bigger = new Uint32Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = value;
  }
  done(): Uint32Array {
    return this.data.slice(0, this.length);
  }
}

/** Dotted IPv4 text → its 32-bit number; -1 when it is not one. */
function parseIpv4(text: string): number {
  let value = 0;
  let part = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || part > 255) return -1;
      value = value * 256 + part;
      part = 0;
      digits = 0;
      dots++;
    } else if (c >= 48 && c <= 57 && digits < 3) {
      part = part * 10 + (c - 48);
      digits++;
    } else return -1;
  }
  if (dots !== 3 || digits === 0 || part > 255) return -1;
  return value * 256 + part;
}

/** IPv6 text → four words; null when it is not one (embedded IPv4 goes through ipaddr). */
function parseIpv6(text: string): Words | null {
  if (text.includes('.'))
    return ipaddr.IPv6.isValid(text) ? wordsOf(ipaddr.IPv6.parse(text)) : null;
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const groups = [...head, ...Array<string>(missing).fill('0'), ...tail];
  const parts: number[] = [];
  for (const group of groups) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return null;
    parts.push(Number.parseInt(group, 16));
  }
  return wordsOf({ parts });
}

function wordsOf(address: { parts: number[] }): Words {
  const p = address.parts;
  return [
    (((p[0] ?? 0) << 16) | (p[1] ?? 0)) >>> 0,
    (((p[2] ?? 0) << 16) | (p[3] ?? 0)) >>> 0,
    (((p[4] ?? 0) << 16) | (p[5] ?? 0)) >>> 0,
    (((p[6] ?? 0) << 16) | (p[7] ?? 0)) >>> 0,
  ];
}

/** -1, 0 or 1 as words a compare to the four words of `array` at `index`. */
function compareWords(a: Words, array: Uint32Array, index: number): number {
  for (let i = 0; i < 4; i++) {
    const b = array[index * 4 + i] as number;
    if (a[i] !== b) return (a[i] as number) < b ? -1 : 1;
  }
  return 0;
}

/** The index of the last start ≤ value in a sorted start column (bisection); -1 when none. */
function lastAtOrBelow(count: number, atOrBelow: (index: number) => boolean): number {
  let low = 0;
  let high = count - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (atOrBelow(middle)) low = middle + 1;
    else high = middle - 1;
  }
  return high;
}

/** A permutation that sorts `count` items by `compare`, or null when they are sorted already. */
function sortOrder(count: number, compare: (a: number, b: number) => number): Uint32Array | null {
  let sorted = true;
  for (let i = 1; i < count && sorted; i++) sorted = compare(i - 1, i) <= 0;
  if (sorted) return null;
  return Uint32Array.from({ length: count }, (_, i) => i).sort(compare);
}

const permute = (column: Uint32Array, order: Uint32Array | null, stride = 1): Uint32Array => {
  if (!order) return column;
  const out = new Uint32Array(column.length);
  for (let i = 0; i < order.length; i++) {
    const from = (order[i] as number) * stride;
    for (let k = 0; k < stride; k++) out[i * stride + k] = column[from + k] as number;
  }
  return out;
};

/** For each network, the indexes of its ranges: `offsets[n]..offsets[n + 1]` of `ranges`. */
function rangesByNetwork(networkOf: Uint32Array, networks: number) {
  const offsets = new Uint32Array(networks + 1);
  for (const n of networkOf) offsets[n + 1] = (offsets[n + 1] as number) + 1;
  for (let n = 0; n < networks; n++) {
    offsets[n + 1] = (offsets[n + 1] as number) + (offsets[n] as number);
  }
  const next = offsets.slice(0, networks);
  const ranges = new Uint32Array(networkOf.length);
  for (let r = 0; r < networkOf.length; r++) {
    const n = networkOf[r] as number;
    ranges[next[n] as number] = r;
    next[n] = (next[n] as number) + 1;
  }
  return { offsets, ranges };
}

/**
 * IP → network (autonomous system) from CSV files of `start,end,asn,name` ranges (the
 * ip-location-db layout), in typed arrays: the bundled 515,000 ranges of 91,000 networks
 * take ~10 MB instead of the ~200 MB objects and bigints took, and load in under a second.
 * Networks are numbered 0..count-1 in ASN order.
 */
export class NetworkTable {
  private constructor(
    /** Per network: its ASN (ascending), name, IPv4 addresses, and its ranges. */
    readonly asns: Uint32Array,
    private readonly names: string[],
    readonly ipv4Addresses: Float64Array,
    private readonly v4: { start: Uint32Array; end: Uint32Array; network: Uint32Array },
    private readonly v6: { start: Uint32Array; end: Uint32Array; network: Uint32Array },
    private readonly v4Of: { offsets: Uint32Array; ranges: Uint32Array },
    private readonly v6Of: { offsets: Uint32Array; ranges: Uint32Array },
  ) {}

  get count(): number {
    return this.asns.length;
  }

  static async load(paths: string[]): Promise<NetworkTable> {
    const v4Start = new Column(1 << 19);
    const v4End = new Column(1 << 19);
    const v4Asn = new Column(1 << 19);
    const v6Start = new Column(1 << 19);
    const v6End = new Column(1 << 19);
    const v6Asn = new Column(1 << 17);
    const names = new Map<number, string>();
    // One `start,end,asn,name` line: text[from..to).
    const line = (text: string, from: number, to: number) => {
      const first = text.indexOf(',', from);
      const second = first === -1 || first > to ? -1 : text.indexOf(',', first + 1);
      const third = second === -1 || second > to ? -1 : text.indexOf(',', second + 1);
      if (third === -1 || third > to) return;
      const asn = Number(text.slice(second + 1, third));
      if (second + 1 === third || !Number.isInteger(asn) || asn < 0 || asn > 0xffffffff) return;
      const start = text.slice(from, first);
      const end = text.slice(first + 1, second);
      const a = parseIpv4(start);
      const b = a === -1 ? -1 : parseIpv4(end);
      if (a !== -1 && b !== -1) {
        v4Start.push(a);
        v4End.push(b);
        v4Asn.push(asn);
      } else {
        const low = parseIpv6(start);
        const high = low && parseIpv6(end);
        if (!low || !high) return;
        for (const word of low) v6Start.push(word);
        for (const word of high) v6End.push(word);
        v6Asn.push(asn);
      }
      if (!names.has(asn)) {
        let name = text.slice(third + 1, to).trim();
        if (name.startsWith('"')) name = name.slice(1, -1).replaceAll('""', '"');
        // A copy: a slice would keep the chunk's whole text alive.
        names.set(asn, Buffer.from(name).toString());
      }
    };
    for (const path of paths) {
      // Read in chunks, so the 33 MB of text never sits in memory at once.
      const decoder = new StringDecoder('utf8');
      let rest = '';
      const lines = (text: string, last: boolean) => {
        let from = 0;
        for (let to = text.indexOf('\n'); to !== -1; to = text.indexOf('\n', from)) {
          line(text, from, to);
          from = to + 1;
        }
        if (last) line(text, from, text.length);
        return text.slice(from);
      };
      for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
        rest = lines(rest + decoder.write(chunk as Buffer), false);
      }
      lines(rest + decoder.end(), true);
    }
    const asns = Uint32Array.from(names.keys()).sort();
    const indexOf = new Map<number, number>();
    for (let i = 0; i < asns.length; i++) indexOf.set(asns[i] as number, i);
    const networkOf = (column: Uint32Array) => column.map((asn) => indexOf.get(asn) as number);

    const s4 = v4Start.done();
    const order4 = sortOrder(s4.length, (a, b) => (s4[a] as number) - (s4[b] as number));
    const v4 = {
      start: permute(s4, order4),
      end: permute(v4End.done(), order4),
      network: permute(networkOf(v4Asn.done()), order4),
    };
    const s6 = v6Start.done();
    const order6 = sortOrder(s6.length / 4, (a, b) => {
      for (let k = 0; k < 4; k++) {
        const d = (s6[a * 4 + k] as number) - (s6[b * 4 + k] as number);
        if (d !== 0) return d;
      }
      return 0;
    });
    const v6 = {
      start: permute(s6, order6, 4),
      end: permute(v6End.done(), order6, 4),
      network: permute(networkOf(v6Asn.done()), order6),
    };
    const ipv4Addresses = new Float64Array(asns.length);
    for (let r = 0; r < v4.start.length; r++) {
      const n = v4.network[r] as number;
      ipv4Addresses[n] =
        (ipv4Addresses[n] as number) + (v4.end[r] as number) - (v4.start[r] as number) + 1;
    }
    return new NetworkTable(
      asns,
      [...asns].map((asn) => names.get(asn) as string),
      ipv4Addresses,
      v4,
      v6,
      rangesByNetwork(v4.network, asns.length),
      rangesByNetwork(v6.network, asns.length),
    );
  }

  /** The network holding this address, or -1. */
  find(ip: string): number {
    if (!ipaddr.isValid(ip)) return -1;
    const address = ipaddr.process(ip);
    if (address.kind() === 'ipv4') {
      const value = parseIpv4(address.toString());
      const { start, end, network } = this.v4;
      const i = lastAtOrBelow(start.length, (k) => (start[k] as number) <= value);
      return i >= 0 && value <= (end[i] as number) ? (network[i] as number) : -1;
    }
    const value = wordsOf(address as ipaddr.IPv6);
    const { start, end, network } = this.v6;
    const i = lastAtOrBelow(network.length, (k) => compareWords(value, start, k) >= 0);
    return i >= 0 && compareWords(value, end, i) <= 0 ? (network[i] as number) : -1;
  }

  /** The network of this ASN, or -1 when the data has none. */
  indexOf(asn: number): number {
    const i = lastAtOrBelow(this.asns.length, (k) => (this.asns[k] as number) <= asn);
    return i >= 0 && this.asns[i] === asn ? i : -1;
  }

  asn(network: number): number {
    return this.asns[network] as number;
  }

  name(network: number): string {
    return this.names[network] ?? '';
  }

  ipv4RangeCount(network: number): number {
    return (this.v4Of.offsets[network + 1] as number) - (this.v4Of.offsets[network] as number);
  }

  ipv6RangeCount(network: number): number {
    return (this.v6Of.offsets[network + 1] as number) - (this.v6Of.offsets[network] as number);
  }

  /** The network's IPv4 ranges as [first, last] address numbers. */
  *ipv4Ranges(network: number): Generator<[number, number]> {
    const { offsets, ranges } = this.v4Of;
    for (let k = offsets[network] as number; k < (offsets[network + 1] as number); k++) {
      const r = ranges[k] as number;
      yield [this.v4.start[r] as number, this.v4.end[r] as number];
    }
  }

  /** The first address of each of the network's IPv6 ranges, as text. */
  *ipv6RangeStarts(network: number): Generator<string> {
    const { offsets, ranges } = this.v6Of;
    for (let k = offsets[network] as number; k < (offsets[network + 1] as number); k++) {
      const r = ranges[k] as number;
      const parts: number[] = [];
      for (let w = 0; w < 4; w++) {
        const word = this.v6.start[r * 4 + w] as number;
        parts.push(word >>> 16, word & 0xffff);
      }
      yield new ipaddr.IPv6(parts).toString();
    }
  }
}

/** An IPv4 address number as dotted text. */
export const ipv4Text = (value: number): string =>
  `${value >>> 24}.${(value >>> 16) & 255}.${(value >>> 8) & 255}.${value & 255}`;
