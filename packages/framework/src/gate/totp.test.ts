import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import { checkTotp, stepAt } from './totp.ts';

const NOW = 30_000 * 60_000_000 + 10_000;

test('secrets as people paste them: padded, lower-case, grouped with spaces or dashes', () => {
  const secret = new Secret({ size: 10 }); // 16 base32 characters; padding-free either way
  const odd = new Secret({ size: 11 }); // 18 characters + 6 '=' of padding
  const code = (s: Secret) => TOTP.generate({ secret: s, timestamp: NOW });
  const b32 = secret.base32;
  for (const written of [
    b32,
    b32.toLowerCase(),
    b32.replace(/(.{4})/g, '$1 ').trim(),
    b32.replace(/(.{4})/g, '$1-').slice(0, -1),
  ]) {
    assert.deepEqual(
      checkTotp(written, code(secret), NOW),
      { kind: 'valid', step: stepAt(NOW) },
      written,
    );
  }
  const padded = `${odd.base32}${'='.repeat((8 - (odd.base32.length % 8)) % 8)}`;
  assert.ok(padded.endsWith('='));
  assert.equal(checkTotp(padded, code(odd), NOW).kind, 'valid');
  assert.equal(checkTotp(odd.base32, code(odd), NOW).kind, 'valid');
});

test('bad secrets and malformed codes are told apart from wrong codes', () => {
  assert.deepEqual(checkTotp('!!!!', '123456', NOW), { kind: 'bad-secret' });
  assert.deepEqual(checkTotp('', '123456', NOW), { kind: 'bad-secret' });
  assert.deepEqual(checkTotp('JBSWY3DPEHPK3PXP', '12 34 5', NOW), { kind: 'malformed' });
  const right = TOTP.generate({ secret: Secret.fromBase32('JBSWY3DPEHPK3PXP'), timestamp: NOW });
  const wrong = String((Number(right) + 500_000) % 1_000_000).padStart(6, '0');
  assert.deepEqual(checkTotp('JBSWY3DPEHPK3PXP', wrong, NOW), { kind: 'invalid' });
});
