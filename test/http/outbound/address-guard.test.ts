import { describe, expect, it } from 'vitest';
import {
  isPublicAddress,
  publicAddressesOf,
  UnsafeAddressError,
} from '../../../src/http/outbound/address-guard.js';

describe('isPublicAddress', () => {
  it.each([
    '127.0.0.1',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.0.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '192.0.2.1',
    '::1',
    '::',
    'fd00::1',
    'fe80::1',
    '::ffff:10.0.0.1',
    '2001:db8::1',
    'not an address',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['1.1.1.1', '8.8.8.8', '2606:4700:4700::1111', '::ffff:1.1.1.1'])(
    'allows %s',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );
});

describe('publicAddressesOf', () => {
  it('refuses a host when any of its addresses is private', async () => {
    const resolver = async () => ['1.1.1.1', '10.0.0.1'];
    await expect(publicAddressesOf(new URL('https://mixed.example/'), resolver)).rejects.toThrow(
      UnsafeAddressError,
    );
  });

  it('returns the checked addresses of a public host', async () => {
    const resolver = async () => ['1.1.1.1'];
    await expect(publicAddressesOf(new URL('https://ok.example/'), resolver)).resolves.toEqual([
      '1.1.1.1',
    ]);
  });

  it('refuses a host that does not resolve', async () => {
    const resolver = async () => {
      throw new Error('ENOTFOUND');
    };
    await expect(publicAddressesOf(new URL('https://nowhere.example/'), resolver)).rejects.toThrow(
      /could not be resolved/,
    );
  });
});

describe('IPv4 inside IPv6', () => {
  it.each([
    ['::127.0.0.1', 'IPv4-compatible loopback'],
    ['::7f00:1', 'IPv4-compatible loopback in hex'],
    ['::1.1.1.1', 'IPv4-compatible, deprecated whatever it carries'],
    ['::ffff:127.0.0.1', 'mapped loopback'],
    ['::ffff:7f00:1', 'mapped loopback in hex'],
    ['::ffff:169.254.169.254', 'mapped cloud metadata'],
    ['::ffff:0:7f00:1', 'translated (RFC 6145)'],
    ['64:ff9b::a00:1', 'NAT64 of 10.0.0.1'],
    ['64:ff9b::127.0.0.1', 'NAT64 of loopback'],
    ['64:ff9b:1::a00:1', 'local-use NAT64'],
    ['2002:a00:1::1', '6to4 of 10.0.0.1'],
    ['2002:101:101::1', '6to4, a relay whatever it carries'],
    ['2001:0:4136:e378::1', 'Teredo'],
  ])('refuses %s (%s)', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['64:ff9b::101:101', '64:ff9b::8.8.8.8'])(
    'allows NAT64 of a public address, %s (IPv6-only networks reach IPv4 so)',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );

  it.each(['http://[::127.0.0.1]/', 'http://[::ffff:127.0.0.1]/', 'http://[64:ff9b::a00:1]/'])(
    'refuses the URL %s',
    async (url) => {
      await expect(publicAddressesOf(new URL(url))).rejects.toThrow(UnsafeAddressError);
    },
  );
});

describe('refusal messages', () => {
  it('say that a name resolves to a non-public address, never which', async () => {
    const resolver = async () => ['10.20.30.40', 'fd12:3456::7'];
    const refusal = publicAddressesOf(new URL('https://intranet.example/'), resolver);
    await expect(refusal).rejects.toThrow(
      'The host intranet.example resolves to a non-public address.',
    );
    const message = await refusal.catch((error: Error) => error.message);
    expect(message).not.toMatch(/10\.20\.30\.40|fd12/);
  });
});
