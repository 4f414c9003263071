import type { RdapObject } from './rdap-server.js';

// Registrations modelled on what RIPE and ARIN publish over RDAP (RFC 9083), in the
// documentation ranges: an ISP's allocation with a business sub-assignment, a dial-up pool,
// a private person and a business with only a free-mail contact; an ARIN-style reassignment
// to a business and to a "Private Customer"; a hoster's VPS assignment; autnum records.

interface Card {
  handle: string;
  roles: string[];
  kind?: 'org' | 'individual' | 'group';
  fn?: string;
  email?: string;
  address?: string;
  entities?: RdapObject[];
}

/** An entity with its jCard, as registries write them. */
export function entity(card: Card): RdapObject {
  const properties: unknown[][] = [['version', {}, 'text', '4.0']];
  if (card.fn) properties.push(['fn', {}, 'text', card.fn]);
  if (card.kind) properties.push(['kind', {}, 'text', card.kind]);
  if (card.address) {
    properties.push(['adr', { label: card.address }, 'text', ['', '', '', '', '', '', '']]);
  }
  if (card.email) properties.push(['email', {}, 'text', card.email]);
  return {
    objectClassName: 'entity',
    handle: card.handle,
    roles: card.roles,
    ...(card.fn || card.kind ? { vcardArray: ['vcard', properties] } : {}),
    ...(card.entities ? { entities: card.entities } : {}),
  };
}

interface Net {
  handle?: string;
  name: string;
  type: string;
  start: string;
  end: string;
  cidr?: [string, number];
  parentHandle?: string;
  country?: string;
  description?: string[];
  remarks?: { title: string; description: string[] }[];
  entities?: RdapObject[];
  up?: string;
}

/** An `ip network` object. */
export function network(net: Net): RdapObject {
  const v6 = net.start.includes(':');
  const remarks = [
    ...(net.description ? [{ description: net.description }] : []),
    ...(net.remarks ?? []),
  ];
  return {
    objectClassName: 'ip network',
    handle: net.handle ?? `${net.start} - ${net.end}`,
    startAddress: net.start,
    endAddress: net.end,
    ipVersion: v6 ? 'v6' : 'v4',
    name: net.name,
    type: net.type,
    country: net.country ?? 'DE',
    ...(net.parentHandle ? { parentHandle: net.parentHandle } : {}),
    ...(net.cidr
      ? { cidr0_cidrs: [{ [v6 ? 'v6prefix' : 'v4prefix']: net.cidr[0], length: net.cidr[1] }] }
      : {}),
    ...(remarks.length > 0 ? { remarks } : {}),
    entities: net.entities ?? [],
    status: ['active'],
    ...(net.up ? { links: [{ rel: 'up', href: net.up, type: 'application/rdap+json' }] } : {}),
  };
}

// RIPE style: the ISP's maintainer appears as a registrant without a card, its organisation
// with one; contacts are persons (individual) and roles (group).
const ispMaintainer = entity({ handle: 'EXAMPLE-ISP-MNT', roles: ['registrant'] });
const ispOrganisation = entity({
  handle: 'ORG-EIG1-RIPE',
  roles: ['registrant'],
  kind: 'org',
  fn: 'Example ISP GmbH',
  email: 'noc@example-isp.de',
  address: 'Netzweg 1\n10115 Berlin\nGermany',
});
const ispNoc = entity({
  handle: 'EIN1-RIPE',
  roles: ['technical'],
  kind: 'group',
  fn: 'Example ISP NOC',
  email: 'noc@example-isp.de',
});
const ispAbuse = entity({
  handle: 'EIA1-RIPE',
  roles: ['abuse'],
  kind: 'group',
  fn: 'Example ISP Abuse',
  email: 'abuse@example-isp.de',
});

export const ripe = {
  /** The ISP's allocation from the RIR. */
  allocation: network({
    name: 'DE-EXAMPLE-ISP-20100101',
    type: 'ALLOCATED PA',
    start: '192.0.2.0',
    end: '192.0.2.255',
    cidr: ['192.0.2.0', 24],
    description: ['Example ISP GmbH'],
    entities: [ispOrganisation, ispNoc, ispAbuse, ispMaintainer],
  }),
  /** A sub-assignment to a business customer, with the customer's own NOC address. */
  acme: network({
    name: 'ACME-NET',
    type: 'ASSIGNED PA',
    start: '192.0.2.0',
    end: '192.0.2.31',
    cidr: ['192.0.2.0', 27],
    parentHandle: '192.0.2.0 - 192.0.2.255',
    description: ['ACME GmbH', 'Industriestrasse 5', '70565 Stuttgart'],
    entities: [
      entity({
        handle: 'ORG-AG42-RIPE',
        roles: ['registrant'],
        kind: 'org',
        fn: 'ACME GmbH',
        email: 'noc@acme-gmbh.de',
      }),
      entity({
        handle: 'JR1234-RIPE',
        roles: ['administrative'],
        kind: 'individual',
        fn: 'Jane Roe',
        email: 'jane.roe@acme-gmbh.de',
      }),
      ispNoc,
      ispAbuse,
      ispMaintainer,
    ],
  }),
  /** The ISP's dial-in pool. */
  dial: network({
    name: 'EXAMPLE-ISP-DIAL',
    type: 'ASSIGNED PA',
    start: '192.0.2.64',
    end: '192.0.2.127',
    cidr: ['192.0.2.64', 26],
    description: ['Dynamic pool for broadband customers'],
    entities: [ispOrganisation, ispNoc, ispAbuse, ispMaintainer],
  }),
  /** A static line assigned to a private person. */
  person: network({
    name: 'DE-MUSTERMANN',
    type: 'ASSIGNED PA',
    start: '192.0.2.128',
    end: '192.0.2.135',
    cidr: ['192.0.2.128', 29],
    description: ['Max Mustermann'],
    entities: [
      entity({
        handle: 'MM999-RIPE',
        roles: ['administrative', 'technical'],
        kind: 'individual',
        fn: 'Max Mustermann',
        email: 'max.mustermann@gmail.com',
      }),
      ispMaintainer,
    ],
  }),
  /** A business whose only contact is a free-mail address. */
  freeMail: network({
    name: 'WIDGET-WORKS',
    type: 'ASSIGNED PA',
    start: '192.0.2.160',
    end: '192.0.2.167',
    cidr: ['192.0.2.160', 29],
    description: ['Widget Works Ltd'],
    entities: [
      entity({
        handle: 'WW1-RIPE',
        roles: ['administrative', 'technical'],
        kind: 'individual',
        fn: 'Sam Smith',
        email: 'widgetworks@gmail.com',
      }),
      ispAbuse,
      ispMaintainer,
    ],
  }),
  /** A business without its own contacts: the ISP's NOC looks after it. */
  contactAtIsp: network({
    name: 'INITECH-NET',
    type: 'ASSIGNED PA',
    start: '192.0.2.176',
    end: '192.0.2.183',
    cidr: ['192.0.2.176', 29],
    description: ['Initech AG'],
    entities: [ispNoc, ispAbuse, ispMaintainer],
  }),
  /** IPv6: the ISP's allocation and a /48 of the business customer. */
  allocation6: network({
    name: 'DE-EXAMPLE-ISP-V6',
    type: 'ALLOCATED-BY-RIR',
    start: '2001:db8::',
    end: '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff',
    cidr: ['2001:db8::', 32],
    description: ['Example ISP GmbH'],
    entities: [ispOrganisation, ispNoc, ispAbuse, ispMaintainer],
  }),
  acme6: network({
    name: 'ACME-NET6',
    type: 'ASSIGNED',
    start: '2001:db8:ac3e::',
    end: '2001:db8:ac3e:ffff:ffff:ffff:ffff:ffff',
    cidr: ['2001:db8:ac3e::', 48],
    description: ['ACME GmbH'],
    entities: [
      entity({
        handle: 'ORG-AG42-RIPE',
        roles: ['registrant'],
        kind: 'org',
        fn: 'ACME GmbH',
        email: 'noc@acme-gmbh.de',
      }),
      ispMaintainer,
    ],
  }),
};

// ARIN style: an organisation entity with its points of contact nested inside, `up` links.
const carrier = entity({
  handle: 'EXNW',
  roles: ['registrant'],
  kind: 'org',
  fn: 'Example Networks, Inc.',
  address: '1 Carrier Way\nAshburn\nVA\n20147\nUnited States',
  entities: [
    entity({
      handle: 'EXNW-NOC-ARIN',
      roles: ['technical', 'administrative'],
      kind: 'group',
      fn: 'Network Operations',
      email: 'noc@example-networks.net',
    }),
    entity({
      handle: 'EXNW-ABUSE-ARIN',
      roles: ['abuse'],
      kind: 'group',
      fn: 'Abuse',
      email: 'abuse@example-networks.net',
    }),
  ],
});

export const arin = {
  allocation: network({
    handle: 'NET-198-51-100-0-1',
    name: 'EXAMPLE-NETWORKS',
    type: 'DIRECT ALLOCATION',
    start: '198.51.100.0',
    end: '198.51.100.255',
    cidr: ['198.51.100.0', 24],
    country: 'US',
    entities: [carrier],
  }),
  /** A reassignment to a business customer with its own contacts. */
  globex: network({
    handle: 'NET-198-51-100-0-2',
    name: 'GLOBEX-CORP-1',
    type: 'REASSIGNMENT',
    start: '198.51.100.0',
    end: '198.51.100.63',
    cidr: ['198.51.100.0', 26],
    parentHandle: 'NET-198-51-100-0-1',
    country: 'US',
    up: '{rdap}/ip/198.51.100.0/24',
    entities: [
      entity({
        handle: 'C07654321',
        roles: ['registrant'],
        kind: 'org',
        fn: 'Globex Corporation',
        address: '100 Main St\nSpringfield\nIL\n62701\nUnited States',
        entities: [
          entity({
            handle: 'GLOBE-NOC-ARIN',
            roles: ['technical'],
            kind: 'group',
            fn: 'Globex Network Operations',
            email: 'netops@globex-corp.com',
          }),
          entity({
            handle: 'EXNW-ABUSE-ARIN',
            roles: ['abuse'],
            kind: 'group',
            fn: 'Abuse',
            email: 'abuse@example-networks.net',
          }),
        ],
      }),
    ],
  }),
  /** A reassignment to a residential customer: ARIN names them "Private Customer". */
  privateCustomer: network({
    handle: 'NET-198-51-100-64-1',
    name: 'EXNW-RES-64',
    type: 'REASSIGNMENT',
    start: '198.51.100.64',
    end: '198.51.100.71',
    cidr: ['198.51.100.64', 29],
    parentHandle: 'NET-198-51-100-0-1',
    country: 'US',
    up: '{rdap}/ip/198.51.100.0/24',
    entities: [
      entity({
        handle: 'C01111111',
        roles: ['registrant'],
        kind: 'individual',
        fn: 'Private Customer',
        address: 'Ashburn\nVA\n20147\nUnited States',
      }),
    ],
  }),
  /** A reassignment that the ISP made to itself (its own routers), named like any other block. */
  infrastructure: network({
    handle: 'NET-198-51-100-128-1',
    name: 'EXNW-BLK-128',
    type: 'REASSIGNMENT',
    start: '198.51.100.128',
    end: '198.51.100.191',
    cidr: ['198.51.100.128', 26],
    parentHandle: 'NET-198-51-100-0-1',
    country: 'US',
    up: '{rdap}/ip/198.51.100.0/24',
    entities: [carrier],
  }),
};

// A hoster's allocation and one customer's virtual servers in it.
const hoster = entity({
  handle: 'ORG-EHA1-RIPE',
  roles: ['registrant'],
  kind: 'org',
  fn: 'Example Hosting AG',
  email: 'hostmaster@example-hosting.net',
});

export const hosting = {
  allocation: network({
    name: 'DE-EXAMPLE-HOSTING',
    type: 'ALLOCATED PA',
    start: '203.0.113.0',
    end: '203.0.113.255',
    cidr: ['203.0.113.0', 24],
    description: ['Example Hosting AG'],
    entities: [hoster],
  }),
  /** One customer's servers, registered by the hoster under the hoster's name. */
  vps: network({
    name: 'EXAMPLE-HOSTING-CLOUD-17',
    type: 'ASSIGNED PA',
    start: '203.0.113.16',
    end: '203.0.113.31',
    cidr: ['203.0.113.16', 28],
    description: ['Virtual servers', 'Example Hosting AG'],
    entities: [hoster],
  }),
};

export const autnums = {
  /** The ISP's AS: its NOC at its own domain, abuse handled by an outside service. */
  isp: {
    objectClassName: 'autnum',
    handle: 'AS64500',
    name: 'EXAMPLE-ISP-AS',
    startAutnum: 64500,
    endAutnum: 64500,
    country: 'DE',
    entities: [
      entity({
        handle: 'EIA1-RIPE',
        roles: ['abuse'],
        kind: 'group',
        fn: 'Abuse desk',
        email: 'abuse@abuse-desk.com',
      }),
      ispOrganisation,
      entity({
        handle: 'EIN1-RIPE',
        roles: ['technical'],
        kind: 'group',
        fn: 'Example ISP NOC',
        email: 'noc@example-isp.de',
      }),
    ],
  },
  /** A company's own AS whose only contacts are at the registry and at free-mail. */
  enterprise: {
    objectClassName: 'autnum',
    handle: 'AS64501',
    name: 'ACME-AS',
    startAutnum: 64501,
    endAutnum: 64501,
    entities: [
      entity({ handle: 'ACME-MNT', roles: ['registrant'] }),
      entity({
        handle: 'ORG-AG42-RIPE',
        roles: ['registrant'],
        kind: 'org',
        fn: 'ACME GmbH',
      }),
      entity({
        handle: 'RIPE-NCC-HM-MNT',
        roles: ['administrative'],
        kind: 'group',
        fn: 'RIPE NCC Hostmaster',
        email: 'hostmaster@ripe.net',
      }),
      entity({
        handle: 'AN1-RIPE',
        roles: ['technical'],
        kind: 'individual',
        fn: 'Ada Nerd',
        email: 'acme.noc@gmail.com',
      }),
      entity({
        handle: 'AA1-RIPE',
        roles: ['abuse'],
        kind: 'group',
        fn: 'ACME abuse',
        email: 'abuse@acme-gmbh.de',
      }),
    ],
  },
} satisfies Record<string, RdapObject>;

/** Every network above, for a server that answers like the registries together. */
export const allNetworks: RdapObject[] = [
  ...Object.values(ripe),
  ...Object.values(arin),
  ...Object.values(hosting),
];
