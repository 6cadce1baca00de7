/**
 * Handlebars templates for the manifests where a template reads better than code (templates/).
 * Templates are embedded with the other assets, compiled once, and rendered without HTML
 * escaping (they produce YAML). Helpers: `indent N text` (every line, as Helm's `indent`) and
 * `quote s` (Helm's `quote`: a double-quoted string). Pure: data in, text out.
 */
import Handlebars from 'handlebars';
import { assetText } from '../assets';

const hb = Handlebars.create();
hb.registerHelper('indent', (n: number, text: string) =>
  String(text)
    .replace(/\n$/, '')
    .split('\n')
    .map((l) => `${' '.repeat(n)}${l}`)
    .join('\n'),
);
hb.registerHelper('quote', (s: unknown) => JSON.stringify(String(s)));

const compiled = new Map<string, Handlebars.TemplateDelegate>();

/** Render `templates/<name>` with `context`. */
export function renderTemplate(name: string, context: object): string {
  let t = compiled.get(name);
  if (!t) {
    t = hb.compile(assetText(`templates/${name}`), { noEscape: true, strict: true });
    compiled.set(name, t);
  }
  return t(context);
}
