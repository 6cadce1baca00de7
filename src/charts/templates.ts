/**
 * Handlebars templates for the manifests where a template reads better than code (templates/).
 * Templates are precompiled at build time with the other assets (scripts/embed-assets.js, with
 * `noEscape`: they produce YAML, and `strict`), so only handlebars' runtime loads here. Helpers:
 * `indent N text` (every line, as Helm's `indent`) and `quote s` (Helm's `quote`: a double-quoted
 * string). Pure: data in, text out.
 */
import Handlebars from 'handlebars/runtime';
import { templateSpec } from '../assets';

const hb = Handlebars.create();
hb.registerHelper('indent', (n: number, text: string) =>
  String(text)
    .replace(/\n$/, '')
    .split('\n')
    .map((l) => `${' '.repeat(n)}${l}`)
    .join('\n'),
);
hb.registerHelper('quote', (s: unknown) => JSON.stringify(String(s)));

/** Render `templates/<name>` with `context`. */
export function renderTemplate(name: string, context: object): string {
  return hb.template(templateSpec(`templates/${name}`) as Parameters<typeof hb.template>[0])(context);
}
