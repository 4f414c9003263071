import { describe, expect, it } from 'vitest';
import { agree, decide } from '../../src/enrich/agree.js';
import type { Signal } from '../../src/enrich/signals.js';

const ptr = (verdict: Signal['verdict'], more: Partial<Signal> = {}): Signal => ({
  signal: 'reverse_dns',
  value: more.value ?? 'fw1.acme-gmbh.de',
  verdict,
  ...more,
});
const registration = (verdict: Signal['verdict'], more: Partial<Signal> = {}): Signal => ({
  signal: 'registration',
  value: more.value ?? 'ACME-NET (ACME GmbH)',
  verdict,
  ...more,
});
const owner = (verdict: Signal['verdict'], more: Partial<Signal> = {}): Signal => ({
  signal: 'network_owner',
  value: more.value ?? 'AS64500 EXAMPLE-ISP',
  verdict,
  ...more,
});

describe('deciding what the signals name', () => {
  it('lets one organisation signal name, with every signal as evidence', () => {
    const signals = [
      owner('provider'),
      ptr('organisation', { domain: 'acme-gmbh.de', name: 'Acme GmbH' }),
      registration('none', { value: '' }),
    ];
    expect(decide(signals)).toEqual({
      domain: 'acme-gmbh.de',
      name: 'Acme GmbH',
      method: 'reverse_dns',
      signals: [
        { signal: 'network_owner', value: 'AS64500 EXAMPLE-ISP', verdict: 'provider' },
        { signal: 'reverse_dns', value: 'fw1.acme-gmbh.de', verdict: 'organisation' },
        { signal: 'registration', value: '', verdict: 'none' },
      ],
    });
  });

  it('prefers the registration to the PTR name when both name an organisation', () => {
    const named = decide([
      ptr('organisation', { domain: 'acme.de', name: 'Acme' }),
      registration('organisation', { domain: 'acme-gmbh.de', name: 'ACME GmbH' }),
    ]);
    expect(named).toMatchObject({
      domain: 'acme-gmbh.de',
      name: 'ACME GmbH',
      method: 'registration',
    });
  });

  it('prefers, of two different organisations, the one a third signal agrees with', () => {
    const named = decide([
      registration('organisation', { domain: 'globex-corp.com', name: 'Globex Corporation' }),
      ptr('organisation', { domain: 'initech.com', name: 'Initech' }),
      owner('weak', { name: 'Initech LLC' }),
    ]);
    expect(named).toMatchObject({ domain: 'initech.com', method: 'reverse_dns' });
  });

  it('names nobody on one weak signal alone, and keeps the evidence for later', () => {
    expect(
      decide([ptr('weak', { value: 'acme-gmbh.static.example-isp.de', name: 'Acme GmbH' })]),
    ).toBeNull();
    expect(
      decide([registration('weak', { name: 'Widget Works Ltd' }), ptr('none', { value: '' })]),
    ).toBeNull();
  });

  it('names on two weak signals that agree by name or domain label', () => {
    const named = decide([
      ptr('weak', { value: 'acme-gmbh.static.example-isp.de', name: 'Acme GmbH' }),
      registration('weak', { value: 'ACME-NET (ACME GmbH)', name: 'ACME GmbH' }),
    ]);
    // Neither gives a domain: the caller keys such an organisation by its name.
    expect(named).toMatchObject({ domain: '', name: 'ACME GmbH', method: 'registration' });

    const withDomain = decide([
      registration('weak', { name: 'ACME' }),
      ptr('weak', { value: 'www.acme-gmbh.de', domain: 'acme-gmbh.de', name: 'Acme GmbH' }),
    ]);
    expect(withDomain).toMatchObject({ domain: 'acme-gmbh.de', name: 'ACME' });
  });

  it('does not let two weak signals that disagree name anyone', () => {
    expect(
      decide([
        ptr('weak', { name: 'Acme GmbH' }),
        registration('weak', { name: 'Globex Corporation', domain: 'globex-corp.com' }),
      ]),
    ).toBeNull();
  });

  it('never names on provider, person, unconfirmed or none', () => {
    const signals = [
      owner('provider'),
      ptr('unconfirmed', { value: 'mail.globex-corp.com' }),
      registration('person', { value: 'private person' }),
    ];
    expect(decide(signals)).toBeNull();
    expect(
      decide([ptr('provider', { value: 'p*.dip0.t-ipconnect.de' }), registration('provider')]),
    ).toBeNull();
    expect(decide([])).toBeNull();
  });

  it("names nobody on a private person's network, whatever else points at a domain", () => {
    const named = decide([
      ptr('organisation', {
        value: 'gw.mustermann.de',
        domain: 'mustermann.de',
        name: 'Mustermann',
      }),
      registration('person', { value: 'private person' }),
    ]);
    expect(named).toBeNull();
  });

  it('compares names without legal forms, case, accents or hyphens', () => {
    const weak = ptr('weak', { name: 'Muller Technik GmbH' });
    expect(
      agree(
        weak,
        registration('organisation', { domain: 'mueller-technik.de', name: 'Müller Technik AG' }),
      ),
    ).toBe(true);
    expect(agree(weak, registration('organisation', { domain: 'muller-technik.de' }))).toBe(true);
    expect(
      agree(weak, registration('organisation', { domain: 'muller.de', name: 'Muller Bau' })),
    ).toBe(false);
  });
});
