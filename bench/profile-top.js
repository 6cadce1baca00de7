#!/usr/bin/env node
'use strict';
/**
 * Summarise a V8 .cpuprofile (node --cpu-prof): the top functions by self time and by total
 * (inclusive) time, with their share of the whole. Usage: node bench/profile-top.js FILE [N]
 */
const fs = require('node:fs');

const [file, nArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node bench/profile-top.js FILE.cpuprofile [N]\n');
  process.exit(2);
}
const N = Number(nArg ?? 25);
const prof = JSON.parse(fs.readFileSync(file, 'utf8'));
const nodes = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const dt = new Map();
for (let i = 0; i < prof.samples.length; i++)
  dt.set(prof.samples[i], (dt.get(prof.samples[i]) ?? 0) + (prof.timeDeltas[i] ?? 0));
const total = [...dt.values()].reduce((a, b) => a + b, 0);
const label = (n) => {
  const f = n.callFrame;
  const url = f.url.replace(/^file:\/\//, '').replace(process.cwd() + '/', '');
  return `${f.functionName || '(anonymous)'} ${url}:${f.lineNumber + 1}`;
};
const self = new Map();
const incl = new Map();
for (const [id, t] of dt) {
  const n = nodes.get(id);
  const l = label(n);
  self.set(l, (self.get(l) ?? 0) + t);
  // inclusive: every distinct frame on the stack once
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const cl = label(nodes.get(cur));
    if (seen.has(cl)) continue;
    seen.add(cl);
    incl.set(cl, (incl.get(cl) ?? 0) + t);
  }
}
const show = (title, m) => {
  console.log(`${title} (total ${(total / 1000).toFixed(0)} ms)`);
  for (const [l, t] of [...m].sort((a, b) => b[1] - a[1]).slice(0, N))
    console.log(`${((100 * t) / total).toFixed(1).padStart(5)}%  ${(t / 1000).toFixed(0).padStart(6)} ms  ${l}`);
};
show('self time', self);
console.log('');
show('total time', incl);
