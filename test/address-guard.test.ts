import { describe, expect, it } from 'vitest';
import {
  isPublicAddress,
  publicAddressesOf,
  UnsafeAddressError,
} from '../src/webhooks/address-guard.js';

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
