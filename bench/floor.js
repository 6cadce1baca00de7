'use strict';
/**
 * The floor: read every document of the given files and write it back with js-yaml, with the
 * options src/k8s/yaml.ts uses. Nothing else: a command that parses its input and prints
 * objects cannot be faster than this. Usage: node bench/floor.js FILE... > out.yaml
 */
const fs = require('node:fs');
const jsyaml = require('js-yaml');

const out = [];
for (const f of process.argv.slice(2)) {
  jsyaml.loadAll(fs.readFileSync(f, 'utf8'), (d) => {
    if (d !== null && d !== undefined)
      out.push(jsyaml.dump(d, { noRefs: true, lineWidth: -1, sortKeys: false, quotingType: '"' }));
  });
}
const buf = Buffer.from(out.join('---\n'));
for (let off = 0; off < buf.length;) off += fs.writeSync(1, buf, off);
