import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { golden } from './golden';

describe('golden files', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cozy-gw-golden-'));
  const file = path.join(dir, 'expected');
  const printed: string[] = [];
  const o = (update: boolean) => ({ update, print: (s: string) => void printed.push(s), name: 'case/expected' });

  it('update mode rewrites a changed file and prints its diff; an equal one is left alone', () => {
    fs.writeFileSync(file, 'a\nb\nc\n');
    const before = fs.statSync(file).mtimeMs;
    expect(golden(file, 'a\nb\nc\n', o(true))).toBe('');
    expect(fs.statSync(file).mtimeMs).toBe(before);
    const shown = golden(file, 'a\nB\nc\n', o(true));
    expect(fs.readFileSync(file, 'utf8')).toBe('a\nB\nc\n');
    expect(shown).toContain('UPDATE_GOLDEN: case/expected changed:');
    expect(shown).toMatch(/^- b$/m);
    expect(shown).toMatch(/^\+ B$/m);
    expect(printed).toEqual([shown]);
  });

  it('update mode removes a file whose text is now empty, and creates a missing one', () => {
    golden(file, '', o(true));
    expect(fs.existsSync(file)).toBe(false);
    golden(file, 'x\n', o(true));
    expect(fs.readFileSync(file, 'utf8')).toBe('x\n');
  });

  it('without update a difference fails and nothing is written', () => {
    fs.writeFileSync(file, 'old\n');
    expect(() => golden(file, 'new\n', o(false))).toThrow();
    expect(fs.readFileSync(file, 'utf8')).toBe('old\n');
  });
});
