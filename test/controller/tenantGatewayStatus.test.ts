import { renderListeners } from '../../src/controller/gatewayRendering';
import { listenerEntries, readyCondition } from '../../src/controller/tenantGatewayStatus';
import { viewOf } from '../../src/controller/tenantGatewaySpec';
import type { KObject } from '../../src/k8s/model';
import { liveStatus, tgw } from './tgwFixtures';

const v = viewOf(tgw({}, { generation: undefined }));
const listeners = renderListeners(v, ['a.example.org'], [], []);
const gw = (status?: Record<string, unknown>): KObject => ({
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'Gateway',
  metadata: { name: 'cozystack', namespace: 'tenant-root' },
  spec: {},
  ...(status ? { status } : {}),
});

describe('TenantGateway status (docs/behaviour.md §5.10)', () => {
  test('listener entries: name, hostname, certificateName; Pending without listener status', () => {
    expect(listenerEntries(listeners, gw())).toEqual([
      { name: 'http', ready: false, reason: 'Pending' },
      {
        name: 'https-a-8479b785',
        hostname: 'a.example.org',
        ready: false,
        certificateName: 'cozystack-a-8479b785-tls',
        reason: 'Pending',
      },
    ]);
  });

  test('ready listeners carry no reason; NotAccepted and NotProgrammed', () => {
    const st = liveStatus(['http', 'https-a-8479b785']);
    expect(listenerEntries(listeners, gw(st)).map((e) => [e.ready, e.reason])).toEqual([
      [true, undefined],
      [true, undefined],
    ]);
    const ls = st.listeners as { conditions: { type: string; status: string }[] }[];
    ls[0].conditions[1].status = 'False';
    ls[1].conditions[0].status = 'False';
    expect(listenerEntries(listeners, gw(st)).map((e) => e.reason)).toEqual(['NotProgrammed', 'NotAccepted']);
  });

  test('Ready: first match wins; generation missing counts as 1', () => {
    const ready = (st?: Record<string, unknown>) => {
      const g = gw(st);
      return readyCondition(v, g, listenerEntries(listeners, g));
    };
    expect(ready()).toMatchObject({ status: 'False', reason: 'GatewayNotAccepted', observedGeneration: 1 });
    expect(ready(liveStatus([], { accepted: false, programmed: false }))).toMatchObject({
      reason: 'GatewayNotAccepted',
    });
    expect(ready(liveStatus([], { programmed: false }))).toMatchObject({ reason: 'GatewayNotProgrammed' });
    expect(ready(liveStatus(['http']))).toMatchObject({
      status: 'False',
      reason: 'ListenersNotReady',
      message: expect.stringContaining('https-a-8479b785 (Pending)'),
    });
    expect(ready(liveStatus(['http', 'https-a-8479b785']))).toMatchObject({
      status: 'True',
      reason: 'Reconciled',
      message: expect.stringContaining('2 listeners'),
    });
  });
});
