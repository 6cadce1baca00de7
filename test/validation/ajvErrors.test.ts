import { explainCrdError, explainInputError, fieldOf } from '../../src/validation/ajvErrors';
import type { ErrorObject } from 'ajv';

const err = (e: Partial<ErrorObject>): ErrorObject =>
  ({ instancePath: '', schemaPath: '', keyword: 'type', params: {}, ...e }) as ErrorObject;

describe('fieldOf: the one JSON pointer → field converter', () => {
  it('pointers, key paths and a key below', () => {
    expect(fieldOf('/spec/tlsPassthroughListeners/0/port')).toBe('spec.tlsPassthroughListeners[0].port');
    expect(fieldOf('/metadata/labels/a~1b~0c')).toBe('metadata.labels.a/b~c');
    expect(fieldOf('')).toBe('');
    expect(fieldOf('', 'spec')).toBe('spec');
    expect(fieldOf('/spec/items/2', 'name')).toBe('spec.items[2].name');
    expect(fieldOf(['spec', 'listeners', 3, '7'])).toBe('spec.listeners[3].7');
  });
});

describe('the two voices of an ajv error', () => {
  it('a missing property: cozy-gw says "is required", the API server "Required value"; both name the field below', () => {
    const e = err({ instancePath: '/spec', keyword: 'required', params: { missingProperty: 'apex' } });
    expect(explainInputError(e)).toEqual({ field: 'spec.apex', message: 'is required', hint: 'add spec.apex' });
    expect(explainCrdError(e)).toEqual({ field: 'spec.apex', message: 'Required value', hint: 'add spec.apex' });
  });

  it('a wrong type', () => {
    const e = err({
      instancePath: '/spec/gateway',
      keyword: 'type',
      params: { type: 'boolean' },
      data: 'yes',
      message: 'must be boolean',
    });
    expect(explainInputError(e)).toEqual({
      field: 'spec.gateway',
      message: 'must be a boolean, got "yes"',
      hint: 'write true or false, unquoted',
    });
    expect(explainCrdError(e)).toEqual({
      field: 'spec.gateway',
      message: 'must be boolean',
      hint: 'write spec.gateway as a boolean',
    });
  });

  it("a wrong type in YAML's words, and a hint only where it adds to the message", () => {
    const at = (type: string, instancePath: string, data: unknown) =>
      explainInputError(err({ instancePath, keyword: 'type', params: { type }, data, message: `must be ${type}` }));
    expect([
      at('object,null', '/spec', 'oops'),
      at('object', '/spec/resourceQuotas', 5),
      at('integer', '/spec/port', 'x'),
      at('string,integer', '/spec/x', true),
    ]).toEqual([
      {
        field: 'spec',
        message: 'must be a mapping or null, got "oops"',
        hint: 'write key: value lines indented under spec, or nothing after "spec:"',
      },
      {
        field: 'spec.resourceQuotas',
        message: 'must be a mapping, got 5',
        hint: 'write key: value lines indented under resourceQuotas',
      },
      { field: 'spec.port', message: 'must be a whole number, got "x"', hint: undefined },
      { field: 'spec.x', message: 'must be a string or a whole number, got true', hint: undefined },
    ]);
  });
});
