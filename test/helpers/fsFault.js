// Test-only fault injection at the file-system level, preloaded with `node -r` into a cozy-gw child
// process (never part of the program). It counts every call that changes something under
// FSFAULT_DIR (a path inside it, or one reached through a directory descriptor, /proc/self/fd/N/...):
// create (open with O_CREAT, writeFile, copyFile), mkdir, rename, link, symlink, unlink, rm, rmdir.
// At the call numbered FSFAULT_AT (from 0) it does FSFAULT_DO:
//   fail  the call throws EIO and changes nothing
//   kill  the process is killed with SIGKILL before the call (a crash at that step)
//   term  the process sends itself SIGTERM, then the call goes on (Ctrl-C or a CI cancel at that step)
// FSFAULT_ONLY=renameSync,unlinkSync counts only the calls of those functions (`openSync` for
// creating opens, `writeFileSync` for writes by name). With FSFAULT_COUNT=file it writes how many
// such calls it saw, at exit. The implementation
// under test is not told: this works on any writer that uses node's fs.
'use strict';
const fs = require('fs');
const path = require('path');

const dir = process.env.FSFAULT_DIR && path.resolve(process.env.FSFAULT_DIR);
const at = process.env.FSFAULT_AT === undefined ? -1 : Number(process.env.FSFAULT_AT);
const action = process.env.FSFAULT_DO || 'fail';
const only = process.env.FSFAULT_ONLY ? new Set(process.env.FSFAULT_ONLY.split(',')) : undefined;
let n = 0;

const inside = (p) => {
  if (typeof p !== 'string' && !(p instanceof URL) && !Buffer.isBuffer(p)) return false;
  const s = path.resolve(String(p instanceof URL ? p.pathname : p));
  return s === dir || s.startsWith(dir + path.sep) || s.startsWith('/proc/self/fd/');
};

function hit(name, args) {
  if (!dir || (only && !only.has(name)) || !args.some(inside)) return;
  const i = n++;
  if (i !== at) return;
  if (action === 'kill') process.kill(process.pid, 'SIGKILL');
  if (action === 'term') {
    process.kill(process.pid, 'SIGTERM');
    return;
  }
  const e = new Error(`EIO: i/o error (injected at call ${i}), ${args[0]}`);
  e.code = 'EIO';
  e.errno = -5;
  throw e;
}

const creates = (flags) =>
  typeof flags === 'number' ? (flags & fs.constants.O_CREAT) !== 0 : typeof flags === 'string' && /[wa]/.test(flags);

for (const name of [
  'mkdirSync',
  'renameSync',
  'linkSync',
  'symlinkSync',
  'unlinkSync',
  'rmSync',
  'rmdirSync',
  'copyFileSync',
]) {
  const orig = fs[name];
  fs[name] = function (...args) {
    hit(
      name,
      args.filter((a) => typeof a === 'string' || a instanceof URL || Buffer.isBuffer(a)),
    );
    return orig.apply(this, args);
  };
}
const origOpen = fs.openSync;
fs.openSync = function (p, flags, ...rest) {
  if (creates(flags ?? 'r')) hit('openSync', [p]);
  return origOpen.call(this, p, flags, ...rest);
};
const origWrite = fs.writeFileSync;
fs.writeFileSync = function (p, ...rest) {
  // A write to an open descriptor was counted when it was opened.
  if (typeof p !== 'number') hit('writeFileSync', [p]);
  return origWrite.call(this, p, ...rest);
};

if (process.env.FSFAULT_COUNT) {
  process.on('exit', () => origWrite(process.env.FSFAULT_COUNT, String(n)));
}
