/**
 * The validators scripts/embed-assets.js precompiles (ajv standalone code, for start-up speed) answer
 * exactly as ajv compiling the same schemas at run time: same verdict, same errors (keyword,
 * instance path, params, message), so the findings built from them do not change.
 */
import Ajv from 'ajv';
import fc from 'fast-check';
import { asset } from '../../src/assets';
import { DATE_TIME } from '../../src/validation/crdJsonSchema';
import { tenantGatewaySchema, toJsonSchema } from '../../src/validation/tenantGatewayCrd';
import { COZYSTACK_VERSIONS } from '../../src/platform/cozystackVersions';
import {
  cozyGatewayValidator,
  platformValuesValidator,
  tenantGatewayReleasesValidator,
  tenantGatewayValidator,
  tenantValidator,
  type Validate,
} from '../../src/validation/validators.generated';

function runtime(opts: Record<string, unknown>, schema: object, setup?: (a: Ajv) => void) {
  const ajv = new Ajv(opts);
  setup?.(ajv);
  return ajv.compile(schema);
}

const strip = (errors: unknown) => JSON.parse(JSON.stringify(errors ?? null));

function same(pre: Validate, rt: ReturnType<typeof runtime>, data: unknown): void {
  const a = pre(data);
  const b = rt(data);
  expect(a).toBe(b);
  expect(strip(pre.errors)).toEqual(strip(rt.errors));
}

const tg = (spec: unknown, status?: unknown) => ({
  apiVersion: 'gateway.cozystack.io/v1alpha1',
  kind: 'TenantGateway',
  metadata: { name: 'x', namespace: 'tenant-x' },
  spec,
  ...(status === undefined ? {} : { status }),
});

describe('precompiled validators = runtime-compiled ones', () => {
  const tgRt = runtime({ allErrors: true, strict: false }, toJsonSchema(tenantGatewaySchema()), (a) =>
    a.addFormat('date-time', DATE_TIME),
  );
  const valuesRt = runtime(
    { allErrors: true, verbose: true, strict: false },
    asset<object>('schemas/platform-values.schema.json'),
  );
  const tenantRt = runtime(
    { allErrors: true, verbose: true, strict: false },
    asset<object>('schemas/tenant.schema.json'),
  );
  const cozyRt = runtime({ allErrors: true, strict: false }, asset<object>('schemas/cozygateway.schema.json'));

  it('TenantGateway: valid, unknown fields, enums, patterns, bounds, types, formats', () => {
    for (const o of [
      tg({ apex: 'example.org' }),
      tg({ apex: 'example.org', certMode: 'nope', issuerName: 7, extra: true }),
      tg({
        apex: 'x'.repeat(300),
        tlsPassthroughListeners: [{ name: 'a', port: 99999, hostname: 'UPPER' }, { port: 'x' }],
      }),
      tg({ apex: 'example.org', dns01: { provider: 'route53', route53: {} } }),
      tg(
        { apex: 'example.org' },
        { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: 'yesterday', reason: 'R', message: '' }] },
      ),
      tg(
        { apex: 'example.org' },
        {
          conditions: [
            { type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'R', message: '' },
          ],
        },
      ),
      tg(undefined),
      { kind: 'TenantGateway' },
      null,
      'text',
    ])
      same(tenantGatewayValidator(), tgRt, o);
  });

  it("the releases' TenantGateway CRD (docs/versions.md §9): the same cases and arbitrary JSON", () => {
    const releases = COZYSTACK_VERSIONS.find((v) => v.name === 'v1.6.2')!.behaviour;
    const rt = runtime({ allErrors: true, strict: false }, toJsonSchema(tenantGatewaySchema(releases)), (a) =>
      a.addFormat('date-time', DATE_TIME),
    );
    for (const o of [
      tg({ apex: 'example.org' }),
      tg({ apex: 'example.org', certMode: 'edge', tlsPassthroughListeners: [] }),
      tg({
        apex: 'example.org',
        dns01: { provider: 'cloudflare', cloudflare: { apiTokenSecretRef: { key: 'k', optional: 1 } } },
      }),
      tg(
        { apex: 'example.org' },
        { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: 'x', reason: '1', message: '' }] },
      ),
      null,
    ])
      same(tenantGatewayReleasesValidator(), rt, o);
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        same(tenantGatewayReleasesValidator(), rt, tg({ apex: a, certMode: b, tlsPassthroughServices: a }));
      }),
      { numRuns: 100 },
    );
  });

  it('platform values, Tenants and CozyGateway configs', () => {
    same(platformValuesValidator(), valuesRt, {
      publishing: { host: 'example.org', exposedServices: ['api', 3], certificates: { solver: 'x' } },
      gateway: { className: 1 },
    });
    same(platformValuesValidator(), valuesRt, { publishing: { host: 'example.org' } });
    same(tenantValidator(), tenantRt, {
      apiVersion: 'apps.cozystack.io/v1alpha1',
      kind: 'Tenant',
      metadata: { name: 'bob' },
      spec: { gateway: 'yes', host: '' },
    });
    same(tenantValidator(), tenantRt, {
      apiVersion: 'apps.cozystack.io/v1alpha1',
      kind: 'Tenant',
      metadata: { name: 'bob', namespace: 'tenant-root' },
      spec: { gateway: true },
    });
    same(cozyGatewayValidator(), cozyRt, {
      apiVersion: 'fn.cozystack.io/v1alpha1',
      kind: 'CozyGateway',
      spec: { nope: 1 },
    });
  });

  it('on arbitrary JSON in the places the schemas check', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        same(tenantGatewayValidator(), tgRt, tg({ apex: 'example.org', certMode: a, tlsPassthroughListeners: b }));
        same(platformValuesValidator(), valuesRt, { publishing: a, gateway: b });
        same(tenantValidator(), tenantRt, {
          apiVersion: 'apps.cozystack.io/v1alpha1',
          kind: 'Tenant',
          metadata: { name: 'bob', namespace: 'tenant-root' },
          spec: a,
        });
      }),
      { numRuns: 200 },
    );
  });
});
