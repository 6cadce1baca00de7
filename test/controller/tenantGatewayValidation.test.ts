import { tenantGatewayProblems } from '../../src/controller/tenantGatewayValidation';
import { viewOf } from '../../src/controller/tenantGatewaySpec';
import { tgw } from './tgwFixtures';

const problems = (spec: Record<string, unknown>) => tenantGatewayProblems(viewOf(tgw(spec)));

describe('controller-side validation (docs/behaviour.md §5.11)', () => {
  test('a well-formed spec passes', () => {
    expect(
      problems({
        tlsPassthroughServices: ['api', 'vm-exportproxy'],
        tlsPassthroughListeners: [{ name: 'pg', port: 5432, hostname: 'pg.example.org' }],
      }),
    ).toEqual([]);
  });

  test('an unknown certMode and an empty apex are refused', () => {
    expect(problems({ certMode: 'tls-alpn' })[0]).toMatch(/unsupported certMode "tls-alpn"/);
    expect(problems({ apex: '' })[0]).toMatch(/apex is empty/);
  });

  test('tlsPassthroughListeners is refused under edge; tlsPassthroughServices are ignored there', () => {
    expect(
      problems({
        certMode: 'edge',
        tlsPassthroughListeners: [{ name: 'pg', port: 5432, hostname: 'pg.example.org' }],
      })[0],
    ).toMatch(/not supported under certMode edge/);
    expect(problems({ certMode: 'edge', tlsPassthroughServices: ['api', 'api'] })).toEqual([]);
    for (const m of ['dns01', 'existingSecret']) {
      expect(
        problems({ certMode: m, tlsPassthroughListeners: [{ name: 'pg', port: 5432, hostname: 'pg.example.org' }] }),
      ).toEqual([]);
    }
  });

  test('a repeated service, a non-subdomain service and over-long composed names are named', () => {
    expect(problems({ tlsPassthroughServices: ['api', 'api'] })[0]).toMatch(/"api" is repeated/);
    expect(problems({ tlsPassthroughServices: ['Api_x'] })[0]).toMatch(/not a DNS-1123 subdomain/);
    const long = Array.from({ length: 4 }, () => 'a'.repeat(62)).join('.'); // 251 characters
    const ps = problems({ tlsPassthroughServices: [long] });
    expect(ps.join('\n')).toMatch(/listener name tls-a+.* longer than 253/);
    expect(ps.join('\n')).toMatch(/hostname .* longer than 253/);
  });

  test('with listeners present, a mixed-case apex is refused, naming the apex', () => {
    expect(
      problems({
        apex: 'Example.org',
        tlsPassthroughListeners: [{ name: 'pg', port: 5432, hostname: 'pg.example.org' }],
      }).join(),
    ).toMatch(/apex "Example.org" is not a lowercase DNS-1123 subdomain/);
    expect(problems({ apex: 'Example.org' })).toEqual([]);
  });

  test('listener name, port and hostname rules', () => {
    const p = (l: Record<string, unknown>[], extra: Record<string, unknown> = {}) =>
      problems({ tlsPassthroughListeners: l, ...extra }).join('\n');
    expect(p([{ name: 'PG', port: 5432, hostname: 'pg.example.org' }])).toMatch(/not a DNS-1123 label/);
    expect(
      p([
        { name: 'pg', port: 5432, hostname: 'pg.example.org' },
        { name: 'pg', port: 5433, hostname: 'pg2.example.org' },
      ]),
    ).toMatch(/"pg" is repeated/);
    expect(p([{ name: 'api', port: 5432, hostname: 'pg.example.org' }], { tlsPassthroughServices: ['api'] })).toMatch(
      /clashes with the tlsPassthroughServices entry/,
    );
    expect(p([{ name: 'pg', port: 0, hostname: 'pg.example.org' }])).toMatch(/out of range/);
    expect(p([{ name: 'pg', port: 70000, hostname: 'pg.example.org' }])).toMatch(/out of range/);
    expect(p([{ name: 'pg', port: 443, hostname: 'pg.example.org' }])).toMatch(/port 443 belongs/);
    expect(p([{ name: 'pg', port: 80, hostname: 'pg.example.org' }])).toMatch(/port 80 belongs/);
    expect(
      p([
        { name: 'a', port: 5432, hostname: 'a.example.org' },
        { name: 'b', port: 5432, hostname: 'b.example.org' },
      ]),
    ).toMatch(/port 5432 is used by another/);
    expect(p([{ name: 'pg', port: 5432, hostname: 'PG.example.org' }])).toMatch(/hostname "PG.example.org" is not/);
    expect(p([{ name: 'pg', port: 5432, hostname: 'pg.example.com' }])).toMatch(/outside the apex example.org/);
    expect(p([{ name: 'pg', port: 5432, hostname: 'badexample.org' }])).toMatch(/outside the apex/);
  });

  test('SNI overlap between passthrough hostnames, wildcards included, names both', () => {
    const p = problems({
      tlsPassthroughListeners: [
        { name: 'dbs', port: 5432, hostname: '*.db.example.org' },
        { name: 'pg', port: 6432, hostname: 'pg.db.example.org' },
      ],
    });
    expect(p).toHaveLength(1);
    expect(p[0]).toMatch(/tls-dbs \(\*\.db\.example\.org\) and tls-pg \(pg\.db\.example\.org\) overlap by SNI/);
    // *.<apex> overlaps the shipped api.<apex> service listener.
    expect(
      problems({
        tlsPassthroughServices: ['api'],
        tlsPassthroughListeners: [{ name: 'all', port: 5432, hostname: '*.example.org' }],
      })[0],
    ).toMatch(/tls-api \(api\.example\.org\) and tls-all/);
    // Disjoint wildcards and the apex itself do not overlap *.apex.
    expect(
      problems({
        tlsPassthroughListeners: [
          { name: 'a', port: 1, hostname: '*.a.example.org' },
          { name: 'b', port: 2, hostname: '*.b.example.org' },
        ],
      }),
    ).toEqual([]);
    expect(
      problems({
        tlsPassthroughListeners: [
          { name: 'a', port: 1, hostname: '*.example.org' },
          { name: 'b', port: 2, hostname: 'example.org' },
        ],
      }),
    ).toEqual([]);
  });
});
