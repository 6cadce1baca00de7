'use strict';
/*
 * The fake kubectl of the snapshot tests, as a function: testdata/fake-kubectl/kubectl runs it as
 * an executable, and the tests call it in-process through the injectable kubectl runner (CliIO.exec).
 * It answers `[--kubeconfig F] [--context C] get <resource> [--all-namespaces|-A] -o json` from
 * contexts/<context>/<resource>.json, with kubectl's own messages for what the tests exercise:
 *   - no <resource>.json:          error: the server doesn't have a resource type "<resource>"
 *   - <resource>.forbidden:        Error from server (Forbidden): ... cannot list resource ...
 *   - contexts/<context>/UNREACHABLE: klog noise, then "The connection to the server ... was refused"
 *   - contexts/<context>/NOT_KUBERNETES: a server that answers 404 to everything (a wrong URL, a
 *     proxy): klog noise, then "Error from server (NotFound): the server could not find the requested resource"
 *   - an unknown context:          Error in configuration: context was not found for specified context: <c>
 *   - a missing --kubeconfig file: error: stat <file>: no such file or directory
 * The current context is the kubeconfig's `current-context:` line, else $FAKE_KUBECTL_CONTEXT,
 * else "kind-cozy". $FAKE_KUBECTL_LOG, when set, gets one JSON line of argv per call.
 */
const fs = require('node:fs');
const path = require('node:path');

/** One kubectl call: its exit code, stdout and stderr. */
function fakeKubectl(argv, { env = {}, cwd = process.cwd() } = {}) {
  if (env.FAKE_KUBECTL_LOG) fs.appendFileSync(path.resolve(cwd, env.FAKE_KUBECTL_LOG), JSON.stringify(argv) + '\n');
  let noise = '';
  const fail = (msg, code = 1) => ({ code, stdout: '', stderr: noise + msg + '\n' });

  let kubeconfig, context;
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--kubeconfig') kubeconfig = argv[++i];
    else if (a.startsWith('--kubeconfig=')) kubeconfig = a.slice(13);
    else if (a === '--context') context = argv[++i];
    else if (a.startsWith('--context=')) context = a.slice(10);
    else rest.push(a);
  }
  if (kubeconfig !== undefined && !fs.existsSync(path.resolve(cwd, kubeconfig))) return fail(`error: stat ${kubeconfig}: no such file or directory`);
  if (context === undefined) {
    const text = kubeconfig ? fs.readFileSync(path.resolve(cwd, kubeconfig), 'utf8') : '';
    const m = /^current-context:\s*"?([^"\s]+)"?\s*$/m.exec(text);
    context = m ? m[1] : env.FAKE_KUBECTL_CONTEXT || 'kind-cozy';
  }
  const dir = path.join(__dirname, 'contexts', context);
  if (!fs.existsSync(dir)) return fail(`Error in configuration: context was not found for specified context: ${context}`);
  if (fs.existsSync(path.join(dir, 'UNREACHABLE'))) {
    for (let i = 0; i < 3; i++) noise += `E1130 01:02:03.456789   4242 memcache.go:265] "Unhandled Error" err="couldn't get current server API group list: Get \\"https://127.0.0.1:6443/api?timeout=32s\\": dial tcp 127.0.0.1:6443: connect: connection refused"\n`;
    return fail('The connection to the server 127.0.0.1:6443 was refused - did you specify the right host or port?');
  }

  if (fs.existsSync(path.join(dir, 'NOT_KUBERNETES'))) {
    for (let i = 0; i < 3; i++) noise += `E1206 07:35:43.098580   4242 memcache.go:265] "Unhandled Error" err="couldn't get current server API group list: the server could not find the requested resource"\n`;
    return fail('Error from server (NotFound): the server could not find the requested resource');
  }

  if (rest[0] !== 'get') return fail(`fake kubectl: only "get" is implemented, got: ${rest.join(' ')}`, 2);
  const resource = rest[1];
  const output = rest.includes('-o') ? rest[rest.indexOf('-o') + 1] : rest.find((a) => a.startsWith('-o='))?.slice(3);
  if (output !== 'json') return fail(`fake kubectl: only -o json is implemented`, 2);
  const plural = resource.split('.')[0];
  const group = resource.split('.').slice(1).join('.');
  if (fs.existsSync(path.join(dir, `${resource}.forbidden`))) {
    const scope = 'at the cluster scope';
    return fail(`Error from server (Forbidden): ${plural}.${group ? group : ''} is forbidden: User "jane" cannot list resource "${plural}" in API group "${group}" ${scope}`.replace(`${plural}. is`, `${plural} is`));
  }
  const file = path.join(dir, `${resource}.json`);
  if (!fs.existsSync(file)) return fail(`error: the server doesn't have a resource type "${resource}"`);
  return { code: 0, stdout: fs.readFileSync(file, 'utf8'), stderr: '' };
}

module.exports = { fakeKubectl };
