import { applySet, parseSet, SetSyntaxError, typedValue } from '../../src/charts/setValues';

const set = (arg: string, opts: { asString?: boolean } = {}, existing?: (p: (string | number)[]) => unknown) =>
  applySet({}, parseSet(arg, opts), existing);

describe('--set parsing (helm strvals syntax)', () => {
  it('dotted paths and several assignments in one flag', () => {
    expect(set('publishing.host=acme.com,gateway.enabled=true')).toEqual({
      publishing: { host: 'acme.com' },
      gateway: { enabled: true },
    });
  });
  it('types values as helm does; --set-string keeps strings', () => {
    expect(set('a=true,b=FALSE,c=null,d=0,e=42,f=-7,g=012,h=1.5,i=,j=abc')).toEqual({
      a: true,
      b: false,
      c: null,
      d: 0,
      e: 42,
      f: -7,
      g: '012',
      h: '1.5',
      i: '',
      j: 'abc',
    });
    expect(set('a=true,b=null,e=42', { asString: true })).toEqual({ a: 'true', b: 'null', e: '42' });
    expect(typedValue('99999999999999999999', false)).toBe('99999999999999999999');
  });
  it('lists: {a,b}, {} and typed items', () => {
    expect(set('gateway.attachedNamespaces={cozy-system,default},x={},y={1,true,z}')).toEqual({
      gateway: { attachedNamespaces: ['cozy-system', 'default'] },
      x: [],
      y: [1, true, 'z'],
    });
    expect(set('y={1,true}', { asString: true })).toEqual({ y: ['1', 'true'] });
  });
  it('escaped commas, dots and backslashes', () => {
    expect(set('a=x\\,y,b\\.c=1,d=e\\\\f')).toEqual({ a: 'x,y', 'b.c': 1, d: 'e\\f' });
    expect(set('l={a\\,b,c}')).toEqual({ l: ['a,b', 'c'] });
  });
  it('indexes: a[0]=x, padding with null, nested a[1].b and a[0][1]', () => {
    expect(set('a[0]=x')).toEqual({ a: ['x'] });
    expect(set('a[2]=x')).toEqual({ a: [null, null, 'x'] });
    expect(set('a[1].b=x,a[1].c=y')).toEqual({ a: [null, { b: 'x', c: 'y' }] });
    expect(set('a[0][1]=x')).toEqual({ a: [[null, 'x']] });
  });
  it('an index addresses the list the earlier values hold, as helm does', () => {
    const existing = (p: (string | number)[]) =>
      p.join('.') === 'gateway.attachedNamespaces' ? ['cozy-system', 'default'] : undefined;
    expect(set('gateway.attachedNamespaces[1]=cozy-dashboard', {}, existing)).toEqual({
      gateway: { attachedNamespaces: ['cozy-system', 'cozy-dashboard'] },
    });
  });
  it('keeps each assignment as written, for messages', () => {
    expect(parseSet('a=1,b={x,y},c\\.d=z\\,w').map((a) => a.source)).toEqual(['a=1', 'b={x,y}', 'c\\.d=z\\,w']);
  });
  it.each([
    ['publishing.host', 'publishing.host'],
    ['a=1,b', 'b'],
    ['=x', '='],
    ['a..b=1', 'a..'],
    ['a[x]=1', '[x]'],
    ['a[-1]=1', '[-1]'],
    ['a[0', '[0'],
    ['a[0]b=1', 'b=1'],
    ['a[70000]=1', '[70000]'],
    ['a={x,y', 'a={x,y'],
    ['a={x}y,b=1', 'y'],
  ])('refuses %s, naming the bad token %s', (arg, token) => {
    let err: unknown;
    try {
      parseSet(arg);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SetSyntaxError);
    expect((err as SetSyntaxError).token).toBe(token);
    expect((err as SetSyntaxError).message).toContain(token);
  });
});
