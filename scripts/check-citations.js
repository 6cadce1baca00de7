#!/usr/bin/env node
/**
 * Citations in code comments point into the repository (ARCHITECTURE.md "Citing the documents"):
 *
 * - `docs/<doc>.md §<id>` (several: `§<id>, §<id>`, a range `§<id>–§<id>`) names a section that
 *   exists in that document; `docs/<page>.md "<heading>"` (pages in folders too:
 *   `docs/commands/diff.md "What it does"`) and `ARCHITECTURE.md "<heading>"` name a heading that
 *   exists (the start of it is enough; backticks and the section number are ignored);
 * - no comment, and no test title, cites a README heading (the README is a tour: the reference is
 *   in docs/), and no comment in src/ cites a benchmark round (`round 39`, `the round before`):
 *   it says what was measured, or cites docs/performance.md;
 * - a bare `§<id>` names a section of the document cited last above it in the same file;
 * - a path into the repository (`src/...`, `test/...`, `scripts/...`, `docs/...`, ...) names a
 *   file or folder that exists (the extension may be left out, as jest patterns do);
 * - no comment, and no test title, cites a document the repository does not hold (the upstream
 *   specification's files) or an issue number.
 *
 * Comments are read with the TypeScript scanner over the parsed file, so strings, template
 * literals and regular expressions are never mistaken for comments. Test titles are the first
 * argument of describe/it/test. Prints one line per problem (`file:line: message`) and exits 1
 * when there is any; `--list` prints every citation and where it resolves instead.
 *
 * `--fix` first rewrites the citations whose mapping is mechanical (the specification's section
 * numbers to docs/ sections; see MECHANICAL), then checks.
 *
 * The data the package ships or the build embeds (schemas/, charts/, templates/) is read whole: a
 * schema's description and a chart's comment follow the same rules.
 *
 * Usage: node scripts/check-citations.js [--fix] [--list] [path...]   (default: src test scripts bench schemas charts templates)
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const ROOT = path.resolve(__dirname, '..');
/**
 * The data the package ships or the build embeds (schemas/, charts/, templates/): its text is read
 * whole, as one comment, since a schema's description or a template's comment reaches the user.
 */
const DATA_DIRS = ['schemas', 'charts', 'templates'];
const DEFAULT_DIRS = ['src', 'test', 'scripts', 'bench', ...DATA_DIRS];
const SOURCE_EXT = /\.(ts|js|mjs|cjs)$/;
const DATA_EXT = /\.(json|ya?ml|hbs)$/;
/** Documents of others vendored as they are: not ours to cite from. */
const VENDORED_DATA = [/^schemas\/sarif-[\d.]+\.schema\.json$/, /^schemas\/gitlab-codequality-issue\.schema\.json$/];
const isData = (rel) => DATA_DIRS.some((d) => rel.startsWith(`${d}/`));
/** Generated or vendored code: its comments are not ours. */
const SKIP = [/\.generated\.ts$/, /^scripts\/vendor\//, /(^|\/)node_modules\//];
/** The folders a path in a comment may start with. */
const PATH_ROOTS = [
  'src',
  'test',
  'scripts',
  'bench',
  'docs',
  'schemas',
  'templates',
  'testdata',
  'examples',
  'charts',
];
/** What a path may leave out, as a jest pattern or an import does. */
const PATH_SUFFIXES = ['', '.ts', '.js', '.test.ts', '.md', '.json', '.yaml', '.yml'];

/** Documents the repository does not hold, and issue numbers: never cited. */
const FORBIDDEN = [
  { re: /\breference-facts\b/g, what: 'a document the repository does not hold' },
  { re: /\bcli-contract\b/g, what: 'a document the repository does not hold (cite a README heading)' },
  { re: /\btenant-gateway\.md\b/g, what: 'a document the repository does not hold' },
  { re: /\btenant-chart(\.md)?\b/g, what: 'a document the repository does not hold (docs/tenant.md)' },
  {
    re: /(?<![\w/.-])decisions(\.md)?(?=\s*(§|\d))/g,
    what: 'a document the repository does not hold (docs/decisions.md)',
  },
  { re: /\bRF §/g, what: 'a document the repository does not hold' },
  { re: /\bshared\/spec\b/g, what: 'a document the repository does not hold' },
  { re: /\.\.\/shared\/\w/g, what: 'a folder beside the repository that a clone does not have' },
  { re: /\bissues? #?\d+/gi, what: 'an issue number (say what the thing is instead)' },
];

const SECTION = /§([A-Za-z]?\d+(?:\.\d+)*)/g;
const DOC_CITE =
  /(?<![\w/.-])(docs\/(?:[\w.-]+\/)*[\w.-]+\.md)(?:((?:[ \t]*(?:,|and|or|\/|–|-|to)?[ \t]*§[A-Za-z]?\d+(?:\.\d+)*)+)|[ \t]+"([^"<\n][^"\n]*)")?/g;
/** A README heading, also one a comment wraps onto its next line. */
const README_CITE =
  /(?<![\w/.-])README(?:\.md)?(?:'s)?\s+(?:\*\s+)?(?:section\s+)?"([^"<\n](?:[^"\n]|\n[ \t]*(?:\*|\/\/)?[ \t]*)*)"/g;
const ARCH_CITE = /(?<![\w/.-])ARCHITECTURE(?:\.md)?[ \t]+"([^"<\n][^"\n]*)"/g;
/** A benchmark round named in a comment of src/: history belongs in bench/RESULTS.md, not in the code. */
const ROUNDS = [
  /\brounds? \d+\b/gi,
  /\b(?:the|this|that|last|next|a|an|one|two|three|four|five|six|\d+) rounds? (?:before|ago|earlier|later)\b/gi,
  /\b(?:this|that|the last|the latest|the next|the bench'?s?) round\b(?![ -]trip)/gi,
  /\bbench(?:mark)? rounds?\b/gi,
];
const PATH_RE = new RegExp(`(?<![\\w./@~-])((?:${PATH_ROOTS.join('|')})/[\\w./*-]*[\\w*])`, 'g');

/** The headings of a markdown document: `{id, title}` (the id of `### §<id> Title`, or null). */
function headings(text) {
  const out = [];
  for (const m of text.matchAll(/^#{1,6}[ \t]+(.+?)[ \t]*$/gm)) {
    const raw = m[1];
    const id = /^§([A-Za-z]?\d+(?:\.\d+)*)\b/.exec(raw);
    const title = normalise(raw.replace(/^§\S+[ \t]*/, ''));
    out.push({ id: id ? id[1] : null, title });
  }
  return out;
}

function normalise(s) {
  return s.replace(/`/g, '').replace(/\s+/g, ' ').trim();
}

/** The documents citations may resolve into, read once. */
function loadDocuments(root) {
  const docs = new Map();
  const walk = (rel) => {
    const dir = path.join(root, rel);
    if (!fs.existsSync(dir)) return;
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.isDirectory()) walk(`${rel}/${e.name}`);
      else if (e.name.endsWith('.md'))
        docs.set(`${rel}/${e.name}`, headings(fs.readFileSync(path.join(dir, e.name), 'utf8')));
    }
  };
  walk('docs');
  const arch = path.join(root, 'ARCHITECTURE.md');
  if (fs.existsSync(arch)) docs.set('ARCHITECTURE.md', headings(fs.readFileSync(arch, 'utf8')));
  return docs;
}

function hasSection(doc, id) {
  return doc.some((h) => h.id === id);
}

function hasHeading(doc, title) {
  const want = normalise(title);
  return doc.some((h) => h.title === want || h.title.startsWith(want));
}

/** Generated files the build writes (listed in .gitignore): a path to one is not stale. */
function generatedPaths(root) {
  const gi = path.join(root, '.gitignore');
  if (!fs.existsSync(gi)) return new Set();
  return new Set(
    fs
      .readFileSync(gi, 'utf8')
      .split('\n')
      .map((l) => l.trim().replace(/^\//, ''))
      .filter((l) => l && !l.startsWith('#') && !/[*]/.test(l)),
  );
}

function pathExists(root, p, generated) {
  const clean = p.replace(/\/+$/, '');
  if (clean.includes('*')) {
    // A glob (`test/k8s/yaml*.test.ts`): its folder exists and something in it matches.
    const dir = path.posix.dirname(clean);
    const re = new RegExp(
      `^${path.posix
        .basename(clean)
        .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '.*')}$`,
    );
    const abs = path.join(root, dir);
    return !dir.includes('*') && fs.existsSync(abs) && fs.readdirSync(abs).some((n) => re.test(n));
  }
  if (generated.has(clean) || [...PATH_SUFFIXES].some((s) => generated.has(clean + s))) return true;
  return PATH_SUFFIXES.some((s) => fs.existsSync(path.join(root, clean + s)));
}

/**
 * The comments of a source file, `{pos, text}` each, in order, and its test titles.
 */
function commentsAndTitles(file, text) {
  const kind = /\.(js|mjs|cjs)$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const comments = new Map();
  const titles = [];
  const collect = (ranges) => {
    for (const r of ranges || []) if (!comments.has(r.pos)) comments.set(r.pos, text.slice(r.pos, r.end));
  };
  // Every comment lies in the trivia before or after some node, so reading both ends of every
  // node (leading and same-line trailing trivia) sees each one; the Map drops repeats.
  const stack = [sf];
  while (stack.length) {
    const node = stack.pop();
    collect(ts.getLeadingCommentRanges(text, node.pos));
    collect(ts.getTrailingCommentRanges(text, node.pos));
    collect(ts.getLeadingCommentRanges(text, node.end));
    collect(ts.getTrailingCommentRanges(text, node.end));
    if (ts.isCallExpression(node) && isTestCall(node.expression) && node.arguments.length) {
      const a = node.arguments[0];
      if (ts.isStringLiteral(a) || ts.isNoSubstitutionTemplateLiteral(a))
        titles.push({ pos: a.getStart(sf), text: a.text });
    }
    ts.forEachChild(node, (child) => {
      stack.push(child);
    });
  }
  collect(ts.getLeadingCommentRanges(text, sf.endOfFileToken.pos));
  return {
    comments: [...comments.entries()].sort((a, b) => a[0] - b[0]).map(([pos, t]) => ({ pos, text: t })),
    titles,
    lineOf: (pos) => sf.getLineAndCharacterOfPosition(pos).line + 1,
  };
}

/** A data file's text as one comment (DATA_DIRS). */
function wholeText(text) {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  const lineOf = (pos) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  return { comments: [{ pos: 0, text }], titles: [], lineOf };
}

function isTestCall(callee) {
  let e = callee;
  while (ts.isPropertyAccessExpression(e) || ts.isCallExpression(e))
    e = ts.isCallExpression(e) ? e.expression : e.expression;
  return ts.isIdentifier(e) && ['describe', 'it', 'test'].includes(e.text);
}

/**
 * Check one file's text. `ctx` holds the documents, the repository root and the generated paths.
 * Returns `{problems: [{line, message}], citations: [{line, cite, resolved}]}`.
 */
function checkText(file, text, ctx) {
  const problems = [];
  const citations = [];
  const { comments, titles, lineOf } = isData(file) ? wholeText(text) : commentsAndTitles(file, text);
  const forbidden = (t, pos, where) => {
    for (const { re, what } of FORBIDDEN)
      for (const m of t.matchAll(re))
        problems.push({ line: lineOf(pos + m.index), message: `${where} cites ${what}: "${m[0]}"` });
  };
  let lastDoc = null;
  for (const c of comments) {
    forbidden(c.text, c.pos, 'comment');
    const covered = [];
    const docAt = []; // [index in the comment, document], in order
    // docs/<doc>.md §id... or "heading"
    for (const m of c.text.matchAll(DOC_CITE)) {
      const [whole, doc, sections = '', title] = m;
      const line = lineOf(c.pos + m.index);
      covered.push([m.index, m.index + whole.length]);
      const headingsOf = ctx.docs.get(doc);
      if (!headingsOf) {
        problems.push({ line, message: `${doc} does not exist` });
        continue;
      }
      docAt.push([m.index, doc]);
      for (const s of sections.matchAll(SECTION)) {
        const ok = hasSection(headingsOf, s[1]);
        citations.push({ line, cite: `${doc} §${s[1]}`, resolved: ok });
        if (!ok) problems.push({ line, message: `${doc} has no section §${s[1]}` });
      }
      if (title) {
        const ok = hasHeading(headingsOf, title);
        citations.push({ line, cite: `${doc} "${title}"`, resolved: ok });
        if (!ok) problems.push({ line, message: `${doc} has no heading "${title}"` });
      }
      if (!sections && !title) citations.push({ line, cite: doc, resolved: true });
    }
    for (const m of c.text.matchAll(README_CITE)) {
      const line = lineOf(c.pos + m.index);
      const heading = m[1].replace(/\n[ \t]*(?:\*|\/\/)?[ \t]*/g, ' ');
      citations.push({ line, cite: `README "${heading}"`, resolved: false });
      problems.push({
        line,
        message: `comment cites a README heading ("${heading}"): the README is a tour; cite docs/ (docs/commands/<command>.md, docs/performance.md, ARCHITECTURE.md, ...)`,
      });
    }
    for (const m of c.text.matchAll(ARCH_CITE)) {
      const line = lineOf(c.pos + m.index);
      const ok = ctx.docs.has('ARCHITECTURE.md') && hasHeading(ctx.docs.get('ARCHITECTURE.md'), m[1]);
      citations.push({ line, cite: `ARCHITECTURE.md "${m[1]}"`, resolved: ok });
      if (!ok) problems.push({ line, message: `ARCHITECTURE.md has no heading "${m[1]}"` });
    }
    if (/^src\//.test(file))
      for (const re of ROUNDS)
        for (const m of c.text.matchAll(re))
          problems.push({
            line: lineOf(c.pos + m.index),
            message: `comment cites a benchmark round ("${m[0]}"): say what was measured, or cite docs/performance.md`,
          });
    // Bare §id: the document cited last above it in this file.
    const before = lastDoc;
    for (const m of c.text.matchAll(SECTION)) {
      if (covered.some(([a, b]) => m.index >= a && m.index < b)) continue;
      const line = lineOf(c.pos + m.index);
      const prior = docAt.filter(([i]) => i < m.index);
      lastDoc = prior.length ? prior[prior.length - 1][1] : before;
      if (!lastDoc) {
        problems.push({ line, message: `§${m[1]} names no document (write docs/<doc>.md §${m[1]})` });
        continue;
      }
      const ok = hasSection(ctx.docs.get(lastDoc), m[1]);
      citations.push({ line, cite: `${lastDoc} §${m[1]} (bare)`, resolved: ok });
      if (!ok) problems.push({ line, message: `§${m[1]} (in ${lastDoc}, cited last above) does not exist` });
    }
    if (docAt.length) lastDoc = docAt[docAt.length - 1][1];
    for (const m of c.text.matchAll(PATH_RE)) {
      if (covered.some(([a, b]) => m.index >= a && m.index < b)) continue; // a document, checked above
      if (!pathExists(ctx.root, m[1], ctx.generated))
        problems.push({ line: lineOf(c.pos + m.index), message: `path ${m[1]} does not exist` });
    }
  }
  for (const t of titles) forbidden(t.text, t.pos, 'test title');
  problems.sort((a, b) => a.line - b.line);
  return { problems, citations };
}

function listFiles(root, dirs) {
  const out = [];
  const walk = (rel) => {
    const abs = path.join(root, rel);
    if (!fs.existsSync(abs)) return;
    const st = fs.statSync(abs);
    if (st.isFile()) {
      const wanted = isData(rel)
        ? DATA_EXT.test(rel) && !VENDORED_DATA.some((re) => re.test(rel))
        : SOURCE_EXT.test(rel);
      if (wanted && !SKIP.some((re) => re.test(rel))) out.push(rel);
      return;
    }
    if (SKIP.some((re) => re.test(rel + '/'))) return;
    for (const name of fs.readdirSync(abs).sort()) walk(rel ? `${rel}/${name}` : name);
  };
  for (const d of dirs) walk(d.replace(/\/+$/, ''));
  return out;
}

/** What checkText resolves citations against: the documents, the root, the generated paths. */
function contextFor(root = ROOT) {
  return { root, docs: loadDocuments(root), generated: generatedPaths(root) };
}

/** Check every source file under `dirs` (relative to `root`). */
function checkRepository(root = ROOT, dirs = DEFAULT_DIRS) {
  const ctx = contextFor(root);
  const files = [];
  for (const file of listFiles(root, dirs)) {
    const r = checkText(file, fs.readFileSync(path.join(root, file), 'utf8'), ctx);
    files.push({ file, ...r });
  }
  return files;
}

/**
 * The mechanical part of moving a citation from the specification's files to docs/: the numbering
 * of docs/behaviour.md and docs/tenant.md follows theirs, and docs/decisions.md keeps the
 * decisions' numbers. What this cannot map (named sections, issue numbers, paths) stays for a
 * person, and the check that follows `--fix` lists it.
 */
const B = 'docs/behaviour.md';
const MECHANICAL = [
  [/(?:reference-facts(?:\.md)?|\bRF) §7 layer (\d)/g, `${B} §7.$1`],
  [/(?:reference-facts(?:\.md)?|\bRF) §7 (?:Common|shorthands)/g, `${B} §7.0`],
  [/(?:reference-facts(?:\.md)?|\bRF) §4 CEL rule (\d)/g, `${B} §4.2 rule $1`],
  [/(?:reference-facts(?:\.md)?|\bRF) §4 Status/g, `${B} §4.3`],
  [/(?:reference-facts(?:\.md)?|\bRF) §3 guard (\d)/g, `${B} §3.1 guard $1`],
  [/(?:reference-facts(?:\.md)?|\bRF) §3 Resolution/g, `${B} §3.2`],
  [/(?:reference-facts(?:\.md)?|\bRF) §(\d+(?:\.\d+)*)/g, `${B} §$1`],
  [/tenant-chart(?:\.md)? §5,? §?Q(\d+)/g, 'docs/decisions.md §Q$1'],
  [/tenant-chart(?:\.md)? Q(\d+)/g, 'docs/decisions.md §Q$1'],
  [/tenant-chart(?:\.md)? §(\d+(?:\.\d+)*)/g, 'docs/tenant.md §$1'],
  [/(?<![\w/.-])decisions(?:\.md)? §?(\d+)/g, 'docs/decisions.md §$1'],
  [/(?<![\w/.-])decisions(?:\.md)? §?(Q\d+)/g, 'docs/decisions.md §$1'],
  [/cli-contract(?:\.md)? "cozy-gw ([a-z-]+)"/g, 'docs/commands/$1.md'],
  [/cli-contract(?:\.md)? `(?:cozy-gw )?([a-z-]+)`/g, 'docs/commands/$1.md'],
  [/cli-contract(?:\.md)? "Reading values and writing trees"/g, 'docs/commands/README.md "Values, warnings and trees"'],
  [/cli-contract(?:\.md)? "?Inputs"?/g, 'docs/commands/render.md'],
  // The README's headings before it became a tour, to the docs/ pages that hold their text now.
  ...[
    [/"`?cozy-gw (render|reconcile|diff|admit|fn|post-render)`?[^"]*"/, 'docs/commands/$1.md'],
    [/"`?cozy-gw (snapshot|completion)`?[^"]*"/, 'docs/commands/snapshot.md'],
    [/"Values, warnings and trees[^"]*"/, 'docs/commands/README.md "Values, warnings and trees"'],
    [/"Performance"/, 'docs/performance.md'],
    [/"Memory at scale"/, 'docs/performance.md "Memory at scale"'],
    [/"Design"/, 'ARCHITECTURE.md "Rules of the house"'],
    [/"Commands"/, 'docs/commands/README.md'],
    [/"When something is wrong"/, 'docs/commands/README.md "When something is wrong"'],
    [/"Exit codes"/, 'docs/commands/README.md "Exit codes"'],
    [/"Testing"/, 'ARCHITECTURE.md "How it is tested"'],
    [/"Security notes"/, 'docs/security.md'],
    [/"What a committed tree holds[^"]*"/, 'docs/commands/render.md "What a committed tree holds"'],
    [/"Faithful to upstream"/, 'docs/commands/render.md "Faithful to upstream"'],
  ].map(([heading, to]) => [
    new RegExp(`(?<![\\w/.-])README(?:\\.md)?(?:'s)?[ \\t]+(?:section[ \\t]+)?${heading.source}`, 'g'),
    to,
  ]),
];

/** Rewrite the mechanical citations in the comments and test titles of one file's text. */
function fixText(file, text) {
  const { comments, titles } = isData(file) ? wholeText(text) : commentsAndTitles(file, text);
  const spans = comments.map((c) => ({ pos: c.pos, text: c.text, quote: null }));
  for (const t of titles) spans.push({ pos: t.pos + 1, text: t.text, quote: text[t.pos] });
  spans.sort((a, b) => b.pos - a.pos);
  let out = text;
  for (const sp of spans) {
    if (sp.quote !== null && text.slice(sp.pos, sp.pos + sp.text.length) !== sp.text) continue; // escapes
    let t = sp.text;
    for (const [re, to] of MECHANICAL) if (sp.quote === null || !to.includes(sp.quote)) t = t.replace(re, to);
    if (t !== sp.text) out = out.slice(0, sp.pos) + t + out.slice(sp.pos + sp.text.length);
  }
  return out;
}

function main(argv) {
  if (argv.includes('--fix')) {
    const dirs = argv.filter((a) => !a.startsWith('--'));
    for (const file of listFiles(ROOT, dirs.length ? dirs : DEFAULT_DIRS)) {
      const abs = path.join(ROOT, file);
      const text = fs.readFileSync(abs, 'utf8');
      const fixed = fixText(file, text);
      if (fixed !== text) {
        fs.writeFileSync(abs, fixed);
        process.stderr.write(`fixed ${file}\n`);
      }
    }
    argv = argv.filter((a) => a !== '--fix');
  }
  const list = argv.includes('--list');
  const dirs = argv.filter((a) => !a.startsWith('--'));
  const files = checkRepository(ROOT, dirs.length ? dirs : DEFAULT_DIRS);
  let problems = 0;
  let cites = 0;
  for (const f of files) {
    if (list)
      for (const c of f.citations)
        process.stdout.write(`${f.file}:${c.line}: ${c.cite}${c.resolved ? '' : '  (unresolved)'}\n`);
    for (const p of f.problems) {
      problems++;
      if (!list) process.stdout.write(`${f.file}:${p.line}: ${p.message}\n`);
    }
    cites += f.citations.length;
  }
  process.stderr.write(`${files.length} files, ${cites} citations, ${problems} problems\n`);
  return problems ? 1 : 0;
}

module.exports = { checkText, fixText, checkRepository, contextFor, headings, DEFAULT_DIRS };

if (require.main === module) process.exitCode = main(process.argv.slice(2));
