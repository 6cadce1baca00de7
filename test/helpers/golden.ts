/**
 * A golden file compared with a command's text. In update mode (UPDATE_GOLDEN=1, the only way
 * goldens change) a file whose content differs is rewritten (removed when the text is empty)
 * and the diff of it printed; an equal file is left alone. Otherwise a difference fails.
 */
import * as fs from 'node:fs';
import { diff } from 'jest-diff';

export interface GoldenOptions {
  update: boolean;
  /** Where the diff of a rewritten file goes. */
  print: (s: string) => void;
  /** How the file is named in that diff. */
  name: string;
}

/** Returns the diff printed (update mode) or '' (no change / compare mode). */
export function golden(file: string, actual: string, o: GoldenOptions): string {
  const want = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  if (!o.update) {
    expect(actual).toBe(want);
    return '';
  }
  if (actual === want) return '';
  if (actual === '') fs.rmSync(file);
  else fs.writeFileSync(file, actual);
  const text = `UPDATE_GOLDEN: ${o.name} changed:\n${diff(want, actual, { expand: false, contextLines: 2, aAnnotation: 'golden', bAnnotation: 'now' }) ?? ''}\n\n`;
  o.print(text);
  return text;
}
