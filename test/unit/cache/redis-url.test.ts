/**
 * The REDIS_URL forms: one server, a Sentinel group, a Cluster seed list; errors name the problem
 * and never the password; logs see the URL with its passwords redacted.
 */
import { describe, expect, it } from 'vitest';
import { parseRedisUrl, redactRedisUrl } from '../../../src/cache/redis-cache.js';
import { RegistryConfigSchema } from '../../../src/config/registry.js';

describe('parseRedisUrl', () => {
  it('passes one server through', () => {
    expect(parseRedisUrl('redis://:pw@h:6380/2')).toEqual({ kind: 'single', url: 'redis://:pw@h:6380/2' });
    expect(parseRedisUrl('rediss://h')).toEqual({ kind: 'single', url: 'rediss://h' });
  });

  it('reads a Sentinel group: sentinels, master name, credentials, db', () => {
    expect(parseRedisUrl('redis+sentinel://app:p%40ss@s1:26379,s2,[::1]:26380/mymaster?db=3&sentinelPassword=sp')).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26379 },
        { host: '::1', port: 26380 },
      ],
      name: 'mymaster',
      username: 'app',
      password: 'p@ss',
      sentinelPassword: 'sp',
      db: 3,
      tls: false,
    });
    expect(parseRedisUrl('rediss+sentinel://s1:1/m')).toMatchObject({ kind: 'sentinel', tls: true, db: 0 });
  });

  it('reads a Cluster seed list', () => {
    expect(parseRedisUrl('redis+cluster://:secret@10.0.0.1:7000,10.0.0.2:7001,n3')).toEqual({
      kind: 'cluster',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
        { host: 'n3', port: 6379 },
      ],
      password: 'secret',
      tls: false,
    });
  });

  it('refuses malformed URLs without repeating the password', () => {
    const bad = ['http://h:1', 'redis+sentinel://:topsecret@s1:26379', 'redis+sentinel://:topsecret@s1:99999/m', 'redis+cluster://:topsecret@h:1/3', 'redis+cluster://:topsecret@h:x'];
    for (const url of bad) {
      let msg = '';
      try {
        parseRedisUrl(url);
      } catch (e) {
        msg = (e as Error).message;
      }
      expect(msg, url).toMatch(/REDIS_URL/);
      expect(msg).not.toContain('topsecret');
    }
  });

  it('redacts passwords of every form', () => {
    expect(redactRedisUrl('redis://:pw@h:1')).toBe('redis://:***@h:1');
    expect(redactRedisUrl('redis+sentinel://u:pw@s1:1,s2:2/m?sentinelPassword=sp&db=1')).toBe('redis+sentinel://u:***@s1:1,s2:2/m?sentinelPassword=***&db=1');
    expect(redactRedisUrl('redis+cluster://:pw@a:1,b:2')).toBe('redis+cluster://:***@a:1,b:2');
  });

  it('is checked when the registry configuration is loaded', () => {
    const base = { adminParty: 'a', ledger: { url: 'http://x' }, instruments: [{ id: 'A', name: 'a', symbol: 'A', recipe: 'splice-test-token-v1' }] };
    expect(RegistryConfigSchema.safeParse({ ...base, redisUrl: 'redis+cluster://a:1,b:2' }).success).toBe(true);
    const r = RegistryConfigSchema.safeParse({ ...base, redisUrl: 'redis+sentinel://a:1' });
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues)).toMatch(/master group/);
  });
});
