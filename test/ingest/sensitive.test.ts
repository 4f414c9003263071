import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  hasCardNumber,
  redactUrl,
  SENSITIVE_AUTOCOMPLETE,
  sensitiveName,
} from '../../src/ingest/sensitive.js';
import { client, startTestApp, type TestApp } from '../helpers/app.js';
import { collector, pageview, visit } from '../helpers/collect.js';
import { databaseText } from '../helpers/dump.js';

describe('the sensitive-field rule', () => {
  it('knows sensitive names and ids whatever their separators and case', () => {
    const sensitive = [
      'cc_number',
      'ccNumber',
      'cc-number',
      'billing_cc_number',
      'CardNumber',
      'security_code',
      'securityCode',
      'one-time-code',
      'otp',
      'otp_code',
      'pincode',
      'pin',
      'userPin',
      'apikey',
      'api_key',
      'x-api-key',
      'totp',
      'mfa_code',
      '2fa_code',
      'cc_exp',
      'exp_month',
      'expiry',
      'card_expiry',
      'account_number',
      'acct_no',
      'sort_code',
      'routing_number',
      'iban',
      'bic',
      'swift_code',
      'ssn',
      'social_security_number',
      'tax_id',
      'national_id',
      'passport_number',
      'password',
      'passwd',
      'pwd',
      'PASSWORD',
      'client_secret',
      'access_token',
      'auth_code',
      'authorization',
      'cvv',
      'cvc',
      'csc',
      'session_id',
      'private_key',
    ];
    const ordinary = [
      'email',
      'company',
      'first_name',
      'phone',
      'message',
      'postal_code',
      'promo_code',
      'discount_code',
      'code',
      'cc',
      'author',
      'shipping',
      'opinion',
      'footprint',
      'account_name',
      'access_level',
      'success_url',
      'accept_terms',
      'keyword',
      'expertise',
      'company_size',
      'utm_source',
    ];
    expect(sensitive.filter((name) => !sensitiveName(name))).toEqual([]);
    expect(ordinary.filter((name) => sensitiveName(name))).toEqual([]);
  });

  it('matches password and one-time-code tokens exactly, and every card (cc-…) token', () => {
    for (const token of [
      'one-time-code',
      'cc-number',
      'cc-exp',
      'cc-exp-month',
      'cc-exp-year',
      'cc-csc',
      'cc-name',
      'cc-given-name',
      'cc-additional-name',
      'cc-family-name',
      'cc-type',
      'new-password',
      'current-password',
      'shipping cc-number',
      'billing cc-name',
      'CC-CSC',
    ]) {
      expect(SENSITIVE_AUTOCOMPLETE.test(token), token).toBe(true);
    }
    for (const token of [
      'postal-code',
      'username',
      'email',
      'email webauthn',
      'off',
      'one-time',
      'one-time-codes',
      'password',
      'acc-number',
    ]) {
      expect(SENSITIVE_AUTOCOMPLETE.test(token), token).toBe(false);
    }
  });

  it('finds card numbers by Luhn, with spaces and dashes, anywhere in a text', () => {
    for (const text of [
      '4111111111111111',
      '4111 1111 1111 1111',
      '5555-5555-5555-4444',
      '378282246310005',
      'charge 6011 1111 1111 1117 please',
    ]) {
      expect(hasCardNumber(text), text).toBe(true);
    }
    for (const text of ['4111111111111112', '+44 20 7946 0958', '2026-05-01', '12345', '']) {
      expect(hasCardNumber(text), text).toBe(false);
    }
  });

  it('cuts fragments, and with routes keeps a hash route without its credentials', () => {
    const tokens = 'https://a.example/cb#access_token=abc&id_token=def';
    expect(redactUrl(tokens)).toBe('https://a.example/cb');
    expect(redactUrl(tokens, true)).toBe('https://a.example/cb');
    expect(redactUrl('https://a.example/#/active')).toBe('https://a.example/');
    expect(redactUrl('https://a.example/#/active', true)).toBe('https://a.example/#/active');
    expect(redactUrl('https://a.example/#!/a/b', true)).toBe('https://a.example/#!/a/b');
    expect(redactUrl('https://a.example/#/', true)).toBe('https://a.example/');
    expect(redactUrl('https://a.example/#section', true)).toBe('https://a.example/');
    expect(redactUrl('https://a.example/#/cb?code=x&state=y&access_token=z', true)).toBe(
      'https://a.example/#/cb?state=y',
    );
    expect(redactUrl('https://a.example/#/access_token=x&token_type=Bearer', true)).toBe(
      'https://a.example/',
    );
    // Untouched query strings keep their own spelling, in the address and in a route.
    expect(redactUrl('https://a.example/x?a=b%20c&flag#/u/42', true)).toBe(
      'https://a.example/x?a=b%20c&flag#/u/42',
    );
    expect(redactUrl('https://a.example/#/u?q=b%20c&token=t', true)).toBe(
      'https://a.example/#/u?q=b+c',
    );
    expect(redactUrl('https://a.example/#/u?q=b%20c', true)).toBe('https://a.example/#/u?q=b%20c');
    // An empty or emptied route query leaves no `?`; `#/?` is no route either.
    expect(redactUrl('https://a.example/#/u?', true)).toBe('https://a.example/#/u');
    expect(redactUrl('https://a.example/#/u?code=x', true)).toBe('https://a.example/#/u');
    expect(redactUrl('https://a.example/#/?', true)).toBe('https://a.example/');
    expect(redactUrl('https://a.example/#!/', true)).toBe('https://a.example/#!/');
    expect(redactUrl('https://a.example/p?code=abc&ref=4111111111111111&utm_source=x')).toBe(
      'https://a.example/p?utm_source=x',
    );
    expect(redactUrl('not a url?token=1#x')).toBe('not a url');
  });

  it('drops a parameter holding an e-mail address, plain or still URL-encoded, in its value or name', () => {
    // A GET form's fields, as the browser puts them in the next page's address.
    expect(
      redactUrl('https://a.example/thanks?email=jane%40acme.com&token=t-1&company=Acme&plan=pro'),
    ).toBe('https://a.example/thanks?company=Acme&plan=pro');
    expect(redactUrl('https://a.example/p?to=jane.doe%2Bnews@mail.acme.co.uk&page=2')).toBe(
      'https://a.example/p?page=2',
    );
    // Encoded twice (a return address inside a parameter), and an address as the name.
    expect(
      redactUrl('https://a.example/p?next=%2Finvite%3Femail%3Djane%2540acme.com&utm_source=mail'),
    ).toBe('https://a.example/p?utm_source=mail');
    expect(redactUrl('https://a.example/unsubscribe?jane@b%C3%BCcher.de&list=7')).toBe(
      'https://a.example/unsubscribe?list=7',
    );
    expect(redactUrl('https://a.example/#/u?email=jane%40acme.com&tab=2', true)).toBe(
      'https://a.example/#/u?tab=2',
    );
    // An @ without a domain after it is no address: handles and versions stay.
    const kept = 'https://a.example/p?handle=%40jane&v=pkg@2&utm_campaign=spring&q=a+b';
    expect(redactUrl(kept)).toBe(kept);
  });
});

describe('the collector applies the rule again', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  it('stores no sensitive field, card number or fragment a client sends', async () => {
    const api = client(t.url, (await t.operator()).token);
    const workspace = (await api('POST', '/v1/workspaces', { url: 'https://acme-site.com' })).body
      .data;
    const now = Date.now();
    const answer = await collector(t.url)(
      visit(workspace.tracking_script_id, [
        {
          ...pageview(
            'https://acme-site.com/cb#access_token=AT-FRAGMENT&id_token=IT-FRAGMENT',
            now,
          ),
          referrer: 'https://idp.example/authorize?code=OAUTH-CODE-1#state=s',
        },
        pageview('https://acme-site.com/app#/orders?sig=SIGNED-URL-SIG&page=2', now + 1),
        {
          type: 'form_submit',
          ts: now + 2,
          url: 'https://acme-site.com/pay?reference=4242424242424242',
          form_id: 'pay',
          fields: [
            { name: 'email', value: 'jane@acme.com' },
            { name: 'security_code', value: 'SECURITY-CODE-9' },
            { name: 'mfaCode', value: 'MFA-CODE-7' },
            { name: 'sort-code', value: 'SORT-CODE-6' },
            { name: 'accountNumber', value: 'ACCOUNT-NUMBER-5' },
            { name: 'reference', value: '4242 4242 4242 4242' },
            { name: 'note', value: `${'x'.repeat(490)} 5555 5555 5555 4444` },
          ],
        },
        {
          type: 'click',
          ts: now + 3,
          url: 'https://acme-site.com/',
          href: 'https://out.example/#access_token=HREF-TOKEN',
          text: 'Out',
        },
      ]),
    );
    expect(answer.status).toBe(202);
    const dump = await databaseText(t.database.db);
    expect(dump).toContain('jane@acme.com');
    expect(dump).toContain('https://acme-site.com/app#/orders?page=2');
    // The card numbers as they were sent, whole or in part: four digits alone turn up in the
    // dump's ids and hashes now and then ('5555' in a random UUID), eight do not.
    const leaked = [
      'AT-FRAGMENT',
      'IT-FRAGMENT',
      'OAUTH-CODE-1',
      'SIGNED-URL-SIG',
      '42424242',
      '4242 4242',
      'SECURITY-CODE-9',
      'MFA-CODE-7',
      'SORT-CODE-6',
      'ACCOUNT-NUMBER-5',
      // The note cut to its first 500 characters would end `x 5555 555`.
      'x 5555',
      '5555 5555',
      'HREF-TOKEN',
    ].filter((value) => dump.includes(value));
    expect(leaked).toEqual([]);
  });
});
