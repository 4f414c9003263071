import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import dnsPacket, { type Answer } from 'dns-packet';

/** What the test's DNS server knows: PTR names by address, addresses by name. */
export interface Zone {
  /** `1.2.3.4` or an IPv6 address → its PTR names. */
  ptr?: Record<string, string[]>;
  /** A name → its IPv4 and IPv6 addresses. */
  addresses?: Record<string, string[]>;
}

export interface TestDnsServer {
  /** `127.0.0.1:PORT`, for DNS_SERVERS. */
  server: string;
  zone: Required<Zone>;
  /** Every question asked, as `TYPE name`, in order. */
  questions: string[];
  /** Answers wait this long (a slow server); Infinity never answers (a dead one). */
  delayMs: number;
  close(): Promise<void>;
}

/** `4.3.2.1.in-addr.arpa` → `1.2.3.4`; the nibble form → the IPv6 address. */
function addressOfPtrName(name: string): string | null {
  const lower = name.toLowerCase();
  if (lower.endsWith('.in-addr.arpa')) {
    return lower.slice(0, -'.in-addr.arpa'.length).split('.').reverse().join('.');
  }
  if (lower.endsWith('.ip6.arpa')) {
    const nibbles = lower.slice(0, -'.ip6.arpa'.length).split('.').reverse().join('');
    return (nibbles.match(/.{4}/g) ?? []).join(':');
  }
  return null;
}

/** IPv6 written out in full (eight groups of four), for comparison with a PTR question. */
function fullIpv6(address: string): string {
  const [head = '', tail = ''] = address.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const middle = address.includes('::') ? 8 - left.length - right.length : 0;
  return [...left, ...Array(middle).fill('0'), ...right].map((g) => g.padStart(4, '0')).join(':');
}

/**
 * A real DNS server over UDP on loopback (RFC 1035 messages via dns-packet) answering PTR,
 * A and AAAA from `zone`; anything else is NXDOMAIN. Counts every question.
 */
export async function startDnsServer(zone: Zone = {}): Promise<TestDnsServer> {
  const socket = dgram.createSocket('udp4');
  const state: TestDnsServer = {
    server: '',
    zone: { ptr: zone.ptr ?? {}, addresses: zone.addresses ?? {} },
    questions: [],
    delayMs: 0,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
  const ptrOf = (asked: string): string[] => {
    const address = addressOfPtrName(asked);
    if (!address) return [];
    for (const [known, names] of Object.entries(state.zone.ptr)) {
      const written = known.includes(':') ? fullIpv6(known) : known;
      if (written === address) return names;
    }
    return [];
  };
  socket.on('message', async (message, remote) => {
    let query: dnsPacket.Packet;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return;
    }
    const [question] = query.questions ?? [];
    if (!question) return;
    state.questions.push(`${question.type} ${question.name}`);
    if (state.delayMs === Number.POSITIVE_INFINITY) return;
    if (state.delayMs > 0) await sleep(state.delayMs);
    const name = question.name.toLowerCase();
    let answers: Answer[] = [];
    if (question.type === 'PTR') {
      answers = ptrOf(name).map((data) => ({ type: 'PTR', name: question.name, ttl: 60, data }));
    } else if (question.type === 'A' || question.type === 'AAAA') {
      const wanted =
        question.type === 'A' ? (a: string) => !a.includes(':') : (a: string) => a.includes(':');
      answers = (state.zone.addresses[name] ?? []).filter(wanted).map((data) => ({
        type: question.type as 'A' | 'AAAA',
        name: question.name,
        ttl: 60,
        data,
      }));
    }
    const known =
      answers.length > 0 ||
      name in state.zone.addresses ||
      (question.type === 'PTR' && ptrOf(name).length > 0);
    const response = dnsPacket.encode({
      type: 'response',
      id: query.id,
      flags: dnsPacket.AUTHORITATIVE_ANSWER | (known ? 0 : 3), // rcode 3: NXDOMAIN
      questions: [question],
      answers,
    });
    socket.send(response, remote.port, remote.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  state.server = `127.0.0.1:${(socket.address() as AddressInfo).port}`;
  return state;
}
