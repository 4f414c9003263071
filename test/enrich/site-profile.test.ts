import { describe, expect, it } from 'vitest';
import { parseSiteProfile, sizeLabel } from '../../src/enrich/site-profile.js';
import { fixture } from '../helpers/homepages.js';

describe('a profile from a homepage', () => {
  it('reads a WordPress (Yoast) @graph: the site’s organisation, its logo and sameAs', async () => {
    const profile = parseSiteProfile(
      await fixture('yoast-graph.html'),
      'https://www.acme-pumpen.de/',
      'acme-pumpen.de',
    );
    expect(profile).toEqual({
      name: 'Acme Pumpen GmbH',
      logo: 'https://www.acme-pumpen.de/wp-content/uploads/2023/01/acme-logo.svg',
      // No description in the JSON-LD: OpenGraph has none either, the meta description does.
      description: 'Kreiselpumpen und Dosiertechnik aus München & seit 1947.',
      phone: '',
      email: '',
      founded: '',
      size: '',
      address: {},
      profiles: [
        {
          name: 'linkedin',
          handle: 'acme-pumpen-gmbh',
          url: 'https://www.linkedin.com/company/acme-pumpen-gmbh',
        },
        { name: 'twitter', handle: 'acmepumpen', url: 'https://x.com/acmepumpen' },
        { name: 'youtube', handle: '@acmepumpen', url: 'https://www.youtube.com/@acmepumpen' },
        {
          name: 'xing',
          handle: 'acmepumpengmbh',
          url: 'https://www.xing.com/pages/acmepumpengmbh',
        },
        // From the footer's links; the share buttons are no profiles.
        { name: 'instagram', handle: 'acme.pumpen', url: 'https://www.instagram.com/acme.pumpen' },
      ],
    });
  });

  it('reads an Organization subtype with its address, contacts, founding year and size', async () => {
    const profile = parseSiteProfile(
      await fixture('organization.html'),
      'https://globex-corp.co.uk/en/',
      'globex-corp.co.uk',
    );
    expect(profile).toEqual({
      // Its own node, not the partner's that follows it; `name` before `legalName`.
      name: 'Globex',
      logo: 'https://globex-corp.co.uk/static/img/globex-logo.png',
      description:
        'Globex builds route planning and dispatch software for mid-sized shippers across Europe.',
      phone: '+44 20 7946 0321',
      email: 'hello@globex-corp.co.uk',
      founded: '2009',
      size: '51-200',
      address: {
        address: '221B Baker Street',
        street: 'Baker Street',
        street_number: '221B',
        postal_code: 'NW1 6XE',
        city: 'London',
        state: 'Greater London',
        country: 'GB',
        full_address: '221B Baker Street, NW1 6XE London, Greater London, United Kingdom',
        latitude: '51.5237',
        longitude: '-0.1585',
      },
      profiles: [
        {
          name: 'linkedin',
          handle: 'globex-corp',
          url: 'https://www.linkedin.com/company/globex-corp',
        },
        { name: 'github', handle: 'globex', url: 'https://github.com/globex' },
        { name: 'twitter', handle: 'GlobexCorp', url: 'https://twitter.com/GlobexCorp' },
        { name: 'facebook', handle: 'GlobexCorp', url: 'https://www.facebook.com/GlobexCorp' },
      ],
    });
  });

  it('reads OpenGraph and icons when there is no JSON-LD: the largest icon is the logo', async () => {
    const profile = parseSiteProfile(
      await fixture('opengraph.html'),
      'https://umbrella-outdoor.no/',
      'umbrella-outdoor.no',
    );
    expect(profile).toMatchObject({
      name: 'Umbrella Outdoor',
      logo: 'https://umbrella-outdoor.no/apple-touch-icon.png',
      description: 'Rainwear made to last, from Bergen since 1985.',
      profiles: [
        {
          name: 'linkedin',
          handle: 'umbrella-outdoor',
          url: 'https://www.linkedin.com/company/umbrella-outdoor/about',
        },
        { name: 'github', handle: 'umbrella-outdoor', url: 'https://github.com/umbrella-outdoor' },
        // One per network: the first link wins.
        {
          name: 'facebook',
          handle: 'umbrellaoutdoor',
          url: 'https://www.facebook.com/umbrellaoutdoor',
        },
      ],
    });
  });

  it('falls back to the title, less its "Home" part, and guesses no favicon', async () => {
    const profile = parseSiteProfile(
      await fixture('title-only.html'),
      'http://initech.example/',
      'initech.example',
    );
    expect(profile).toEqual({
      name: 'Initech',
      logo: '',
      description: '',
      phone: '',
      email: '',
      founded: '',
      size: '',
      address: {},
      profiles: [],
    });
  });

  it('picks the part of a title that reads like the domain', () => {
    const name = (title: string, domain: string) =>
      parseSiteProfile(`<title>${title}</title>`, `https://${domain}/`, domain).name;
    expect(name('Pumps since 1947 – Acme', 'acme.com')).toBe('Acme');
    expect(name('Welcome | Stark Industries', 'starkindustries.com')).toBe('Stark Industries');
    expect(name('Vandelay Industries', 'vandelay.example')).toBe('Vandelay Industries');
  });

  it('survives junk JSON-LD, and looks at 20 blocks at most', () => {
    const junk = [
      '{"@context": "https://schema.org", "@type": "Organization", "name": "Broken',
      'null',
      '[]',
      '"a string"',
      `${'['.repeat(5000)}${']'.repeat(5000)}`,
      '{"@type": 5, "name": "Typed by a number"}',
      '{"@type": "Organization", "name": {"first": "no"}, "logo": {"@id": "#nowhere"}, "address": [7, "x"], "sameAs": ["not a url", 3, null], "numberOfEmployees": "lots", "foundingDate": "next year", "email": "not-an-email", "telephone": {"x": 1}, "geo": {"latitude": "north", "longitude": 1000}}',
      '{"@graph": {"@graph": {"@graph": null}}}',
      '{"@id": "a", "knows": {"@id": "a"}, "logo": {"@id": "a"}}',
      `{"@type": "Organization", "description": "${'A'.repeat(600_000)}"}`,
      ...Array.from({ length: 12 }, () => '{}'),
      // The 23rd block: never looked at.
      '{"@type": "Organization", "name": "Too late Ltd", "telephone": "+1 555 0100"}',
    ];
    const page = `<html><head><title>Hooli — Home</title>
      <meta property="og:site_name" content="Hooli XYZ">
      ${junk.map((block) => `<script type="application/ld+json">${block}</script>`).join('\n')}
      <link rel="icon" href="javascript:alert(1)"><link rel="icon" href="data:image/png;base64,AAAA">
      </head><body><a href="https://github.com/hooli">GitHub</a></body></html>`;
    expect(parseSiteProfile(page, 'https://hooli.example/', 'hooli.example')).toEqual({
      name: 'Hooli XYZ',
      logo: '',
      description: '',
      phone: '',
      email: '',
      founded: '',
      size: '',
      address: {},
      profiles: [{ name: 'github', handle: 'hooli', url: 'https://github.com/hooli' }],
    });
    // A good block after junk ones is still read.
    const mixed = `<script type="application/ld+json">{oops</script>
      <script type="application/ld+json">{"@type": "LocalBusiness", "name": "Hooli Café"}</script>`;
    expect(parseSiteProfile(mixed, 'https://hooli.example/', 'hooli.example').name).toBe(
      'Hooli Café',
    );
  });

  it('caps every text field', () => {
    const long = 'x'.repeat(5000);
    const profile = parseSiteProfile(
      `<script type="application/ld+json">{"@type": "Organization", "name": "${long}",
        "description": "${long}", "telephone": "${long}",
        "address": {"streetAddress": "${long}", "addressCountry": "${long}"}}</script>`,
      'https://long.example/',
      'long.example',
    );
    expect(profile.name.length).toBe(200);
    expect(profile.description.length).toBe(1000);
    expect(profile.phone.length).toBe(50);
    expect(profile.address.street?.length).toBe(200);
    expect(profile.address.country?.length).toBe(200);
  });

  it('maps numberOfEmployees to the directory’s size labels', () => {
    expect([1, 10, 11, 200, 201, 1000, 4999, 10000, 10001, 250000].map(sizeLabel)).toEqual([
      '1-10',
      '1-10',
      '11-50',
      '51-200',
      '201-500',
      '501-1000',
      '1001-5000',
      '5001-10000',
      '10001+',
      '10001+',
    ]);
    const size = (value: string) =>
      parseSiteProfile(
        `<script type="application/ld+json">{"@type": "Organization", "numberOfEmployees": ${value}}</script>`,
        'https://a.example/',
        'a.example',
      ).size;
    expect(size('1200')).toBe('1001-5000');
    expect(size('"35"')).toBe('11-50');
    expect(size('{"@type": "QuantitativeValue", "value": 7500}')).toBe('5001-10000');
    expect(size('{"@type": "QuantitativeValue", "minValue": 11, "maxValue": 50}')).toBe('11-50');
    expect(size('"201-500"')).toBe('201-500');
  });
});
