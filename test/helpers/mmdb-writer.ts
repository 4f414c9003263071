import ipaddr from 'ipaddr.js';

/**
 * A minimal MaxMind DB writer for tests: an IPv6 tree (IPv4 networks under ::/96, as
 * MaxMind's own databases hold them), 32-bit records, string-valued maps as data. The real
 * reader (`maxmind`) checks what it writes.
 */
export function writeMmdb(
  networks: { cidr: string; data: Record<string, string> }[],
  databaseType: string,
): Buffer {
  type Node = { children: [Node | Leaf | null, Node | Leaf | null] };
  type Leaf = { data: number };
  const root: Node = { children: [null, null] };
  const data: Buffer[] = [];
  let dataLength = 0;
  for (const { cidr, data: record } of networks) {
    const [address, bits] = ipaddr.parseCIDR(cidr);
    // IPv4 lives under ::/96 (twelve zero bytes, then the address).
    const bytes =
      address.kind() === 'ipv4'
        ? [...new Array(12).fill(0), ...address.toByteArray()]
        : address.toByteArray();
    const prefix = address.kind() === 'ipv4' ? bits + 96 : bits;
    const encoded = encode(record);
    const leaf: Leaf = { data: dataLength };
    data.push(encoded);
    dataLength += encoded.length;
    let node = root;
    for (let i = 0; i < prefix; i++) {
      const bit = ((bytes[i >> 3] as number) >> (7 - (i % 8))) & 1;
      if (i === prefix - 1) {
        node.children[bit] = leaf;
      } else {
        let next = node.children[bit];
        if (!next || 'data' in next) {
          next = { children: [null, null] };
          node.children[bit] = next;
        }
        node = next;
      }
    }
  }
  const nodes: Node[] = [];
  const index = new Map<Node, number>();
  const queue: Node[] = [root];
  while (queue.length > 0) {
    const node = queue.shift() as Node;
    index.set(node, nodes.length);
    nodes.push(node);
    for (const child of node.children) if (child && !('data' in child)) queue.push(child);
  }
  const count = nodes.length;
  const tree = Buffer.alloc(count * 8);
  nodes.forEach((node, i) => {
    node.children.forEach((child, side) => {
      const value = !child
        ? count
        : 'data' in child
          ? count + 16 + child.data
          : (index.get(child) as number);
      tree.writeUInt32BE(value, i * 8 + side * 4);
    });
  });
  const metadata = Buffer.concat([
    Buffer.from([0xab, 0xcd, 0xef]),
    Buffer.from('MaxMind.com'),
    encodeMap([
      ['binary_format_major_version', uint(2)],
      ['binary_format_minor_version', uint(0)],
      ['build_epoch', uint(Math.floor(Date.now() / 1000))],
      ['database_type', str(databaseType)],
      ['description', encodeMap([['en', str('test data')]])],
      ['ip_version', uint(6)],
      ['languages', Buffer.concat([Buffer.from([0x01, 0x04]), str('en')])],
      ['node_count', uint(count)],
      ['record_size', uint(32)],
    ]),
  ]);
  return Buffer.concat([tree, Buffer.alloc(16), ...data, metadata]);
}

function control(type: number, size: number): Buffer {
  if (size >= 29) throw new Error('test writer: value too long');
  return type <= 7 ? Buffer.from([(type << 5) | size]) : Buffer.from([size, type - 7]);
}
const str = (text: string) => {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length < 29) return Buffer.concat([control(2, bytes.length), bytes]);
  return Buffer.concat([Buffer.from([(2 << 5) | 29, bytes.length - 29]), bytes]);
};
const uint = (value: number) => {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value);
  return Buffer.concat([control(6, 4), bytes]);
};
const encodeMap = (entries: [string, Buffer][]) =>
  Buffer.concat([
    control(7, entries.length),
    ...entries.flatMap(([key, value]) => [str(key), value]),
  ]);
const encode = (record: Record<string, string>) =>
  encodeMap(Object.entries(record).map(([k, v]) => [k, str(v)]));
