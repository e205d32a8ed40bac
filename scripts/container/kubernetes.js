#!/usr/bin/env node
/**
 * The Kubernetes manifests (deploy/kubernetes/), checked offline:
 *   node scripts/container/kubernetes.js render DIR      prints the rendered kustomization
 *   node scripts/container/kubernetes.js check DIR...    renders each, validates every object
 *       against the Kubernetes schemas (kubernetes-models) and a CloudNativePG `Cluster` against
 *       its CRD schema (deploy/kubernetes/schemas/), and, where `kubectl` is installed, compares
 *       the rendering with `kubectl kustomize`
 *   node scripts/container/kubernetes.js pod DIR IMAGE OUT.yaml [KEY=VALUE...]
 *       writes the rendered gateway Deployment with its ConfigMap for `podman kube play` (the
 *       Secret's values put in the env: podman 4.3 cannot read the Secrets it stores): the image
 *       replaced, values of the Secret, the ConfigMap or the container's env overridden by
 *       KEY=VALUE, the ports left to the host's network (`--network host`)
 *
 * The renderer covers what this project's kustomizations use (kustomize's own semantics):
 * `resources` (files and directories), `namespace`, `labels` (pairs, metadata only), `images`
 * (newName/newTag), `secretGenerator` (`envs` files and `literals`, with
 * `generatorOptions.disableNameSuffixHash`) and inline `patches`: JSON 6902 (a list of operations,
 * with a kind/name target) or strategic merge (an object; lists of named items, such as
 * containers and env, merged by `name`).
 * Debian has no kustomize or kubectl package; this needs neither.
 */
const { execFileSync, spawnSync } = require('node:child_process');
const { existsSync, readFileSync, statSync, writeFileSync } = require('node:fs');
const { isDeepStrictEqual } = require('node:util');
const { join, resolve } = require('node:path');
const YAML = require('yaml');

const CLUSTER_SCOPED = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition', 'PersistentVolume', 'StorageClass', 'PriorityClass']);

function loadDocuments(file) {
  return YAML.parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => {
      if (d.errors.length) throw new Error(`${file}: ${d.errors[0].message}`);
      return d.toJS();
    })
    .filter((o) => o && typeof o === 'object');
}

/** JSON pointer (RFC 6901) to [parent, key]. */
function locate(root, pointer) {
  const parts = pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  let node = root;
  for (const part of parts.slice(0, -1)) {
    node = Array.isArray(node) ? node[Number(part)] : node?.[part];
    if (node === undefined) throw new Error(`patch path ${pointer}: ${part} not found`);
  }
  return [node, parts[parts.length - 1]];
}

function applyJsonPatch(object, operations) {
  for (const op of operations) {
    const [parent, key] = locate(object, op.path);
    const isArray = Array.isArray(parent);
    const index = key === '-' ? parent.length : Number(key);
    switch (op.op) {
      case 'add':
        if (isArray) parent.splice(index, 0, op.value);
        else parent[key] = op.value;
        break;
      case 'replace':
        if (isArray ? index >= parent.length : !(key in parent)) throw new Error(`patch replace ${op.path}: nothing there`);
        parent[isArray ? index : key] = op.value;
        break;
      case 'remove':
        if (isArray) parent.splice(index, 1);
        else delete parent[key];
        break;
      case 'test':
        if (!isDeepStrictEqual(parent[isArray ? index : key], op.value)) throw new Error(`patch test ${op.path} failed`);
        break;
      default:
        throw new Error(`patch op ${op.op} is not supported`);
    }
  }
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isNamedList = (list) => Array.isArray(list) && list.every((item) => isObject(item) && typeof item.name === 'string');

/**
 * A strategic merge patch as kustomize applies it to these objects: maps merged key by key, a
 * `null` deleting a key, lists of named items (containers, env, volumes) merged item by item by
 * `name` (an unknown name appended), any other list replaced.
 */
function strategicMerge(target, patch) {
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null) {
      delete target[key];
    } else if (isNamedList(value) && isNamedList(target[key])) {
      for (const item of value) {
        const existing = target[key].find((t) => t.name === item.name);
        if (existing) strategicMerge(existing, item);
        else target[key].push(structuredClone(item));
      }
    } else if (isObject(value) && isObject(target[key])) {
      strategicMerge(target[key], value);
    } else {
      target[key] = structuredClone(value);
    }
  }
}

/** A `secretGenerator` entry: an Opaque Secret whose `data` holds the env files' and literals' values in base64. */
function generateSecret(dir, file, generator, options) {
  if (options?.disableNameSuffixHash !== true) throw new Error(`${file}: secretGenerator needs generatorOptions.disableNameSuffixHash: true here`);
  const unsupported = Object.keys(generator).filter((f) => !['name', 'envs', 'literals', 'type'].includes(f));
  if (unsupported.length) throw new Error(`${file}: secretGenerator ${unsupported.join(', ')} is not supported by this renderer`);
  const pairs = [...(generator.literals ?? [])];
  for (const envFile of generator.envs ?? []) {
    const path = resolve(dir, envFile);
    if (!existsSync(path)) throw new Error(`${file}: ${envFile} is missing (the overlay's make-secrets.sh writes it)`);
    pairs.push(...readFileSync(path, 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#')));
  }
  const data = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new Error(`${file}: secretGenerator ${generator.name}: ${JSON.stringify(pair.slice(0, 40))} is not KEY=VALUE`);
    data[pair.slice(0, at)] = Buffer.from(pair.slice(at + 1)).toString('base64');
  }
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name: generator.name }, type: generator.type ?? 'Opaque', data };
}

/** A Secret's values in clear, from `stringData` or `data` (base64). */
function secretValues(secret) {
  const values = Object.fromEntries(Object.entries(secret?.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
  return { ...values, ...(secret?.stringData ?? {}) };
}

function podSpecs(object) {
  const spec = object.spec?.template?.spec ?? object.spec?.jobTemplate?.spec?.template?.spec ?? (object.kind === 'Pod' ? object.spec : undefined);
  return spec ? [spec] : [];
}

function render(dir) {
  const file = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'].map((f) => join(dir, f)).find(existsSync);
  if (!file) throw new Error(`${dir}: no kustomization.yaml`);
  const k = YAML.parse(readFileSync(file, 'utf8'));
  const known = new Set(['apiVersion', 'kind', 'resources', 'namespace', 'labels', 'images', 'patches', 'secretGenerator', 'generatorOptions']);
  for (const field of Object.keys(k)) if (!known.has(field)) throw new Error(`${file}: ${field} is not supported by this renderer`);
  let objects = [];
  for (const entry of k.resources ?? []) {
    const path = resolve(dir, entry);
    objects.push(...(statSync(path).isDirectory() ? render(path) : loadDocuments(path)));
  }
  for (const generator of k.secretGenerator ?? []) objects.push(generateSecret(dir, file, generator, k.generatorOptions));
  if (k.namespace) {
    for (const o of objects) if (!CLUSTER_SCOPED.has(o.kind)) o.metadata.namespace = k.namespace;
  }
  for (const { pairs, includeSelectors, includeTemplates } of k.labels ?? []) {
    if (includeSelectors || includeTemplates) throw new Error(`${file}: labels with includeSelectors/includeTemplates are not supported`);
    for (const o of objects) o.metadata.labels = { ...(o.metadata.labels ?? {}), ...pairs };
  }
  for (const image of k.images ?? []) {
    for (const spec of objects.flatMap(podSpecs)) {
      for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
        const [name, tag] = c.image.split(/:(?=[^/]+$)/);
        if (name !== image.name) continue;
        c.image = `${image.newName ?? name}${image.newTag ? `:${image.newTag}` : tag ? `:${tag}` : ''}`;
      }
    }
  }
  for (const patch of k.patches ?? []) {
    if (typeof patch.patch !== 'string') throw new Error(`${file}: only inline patches are supported`);
    const body = YAML.parse(patch.patch);
    const strategic = !Array.isArray(body);
    const target = patch.target ?? (strategic ? { kind: body.kind, name: body.metadata?.name } : undefined);
    if (!target) throw new Error(`${file}: a JSON 6902 patch needs a target`);
    const targets = objects.filter((o) => (!target.kind || o.kind === target.kind) && (!target.name || o.metadata.name === target.name));
    if (targets.length === 0) throw new Error(`${file}: patch target ${JSON.stringify(target)} matches nothing`);
    for (const o of targets) {
      if (strategic) {
        const { apiVersion, kind, metadata, ...rest } = body;
        strategicMerge(o, { ...rest, metadata: { ...metadata, name: undefined } });
      } else applyJsonPatch(o, body);
    }
  }
  const seen = new Set();
  for (const o of objects) {
    const id = `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
    if (seen.has(id)) throw new Error(`${file}: ${id} appears twice`);
    seen.add(id);
  }
  objects = objects.map((o) => structuredClone(o));
  return objects;
}

const idOf = (o) => `${o.kind}/${o.metadata.name}`;

/** kubernetes-models class for apiVersion + kind, or undefined. */
async function modelFor(apiVersion, kind) {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  const path = group ? `kubernetes-models/${group}/${version}/${kind}` : `kubernetes-models/${version}/${kind}`;
  try {
    const mod = await import(path);
    return mod[kind] ?? mod.default;
  } catch {
    return undefined;
  }
}

async function validate(objects, source) {
  const problems = [];
  const Ajv = (await import('ajv')).default;
  const schemasDir = join(__dirname, '..', '..', 'deploy', 'kubernetes', 'schemas');
  for (const o of objects) {
    const where = `${source}: ${idOf(o)}`;
    if (o.apiVersion === 'postgresql.cnpg.io/v1' && o.kind === 'Cluster') {
      const crd = YAML.parse(readFileSync(join(schemasDir, 'postgresql.cnpg.io_clusters.yaml'), 'utf8'));
      const schema = crd.spec.versions.find((v) => v.name === 'v1').schema.openAPIV3Schema;
      const ajv = new Ajv({ allErrors: true, strict: false });
      const check = ajv.compile(schema);
      if (!check(o)) problems.push(`${where}: ${ajv.errorsText(check.errors)}`);
      continue;
    }
    const Model = await modelFor(o.apiVersion, o.kind);
    if (!Model) {
      problems.push(`${where}: no schema for ${o.apiVersion} ${o.kind}`);
      continue;
    }
    try {
      new Model(o).validate();
    } catch (error) {
      problems.push(`${where}: ${error.message}`);
    }
  }
  return problems;
}

/** The same rendering by kubectl, when it is installed (it is not a Debian package). */
function compareWithKubectl(dir, objects) {
  if (spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status !== 0) return 'kubectl not installed: comparison skipped';
  const theirs = YAML.parseAllDocuments(execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8' })).map((d) => d.toJS());
  // kubectl folds a long base64 value over lines, which reads back with spaces in it.
  for (const o of theirs) {
    if (o.kind === 'Secret' && o.data) for (const key of Object.keys(o.data)) o.data[key] = o.data[key].replace(/\s+/g, '');
  }
  const byId = new Map(theirs.map((o) => [idOf(o), o]));
  const diff = [];
  if (theirs.length !== objects.length) diff.push(`kubectl renders ${theirs.length} objects, this renderer ${objects.length}`);
  for (const o of objects) {
    if (!isDeepStrictEqual(byId.get(idOf(o)), JSON.parse(JSON.stringify(o)))) diff.push(`${idOf(o)} differs from kubectl kustomize`);
  }
  if (diff.length) throw new Error(`${dir}:\n  ${diff.join('\n  ')}`);
  return 'the same as kubectl kustomize';
}

async function main() {
  const [command, ...args] = process.argv.slice(2);
  if (command === 'render') {
    process.stdout.write(render(args[0]).map((o) => YAML.stringify(o)).join('---\n'));
  } else if (command === 'check') {
    let failed = false;
    for (const dir of args) {
      const objects = render(dir);
      const problems = await validate(objects, dir);
      const compared = compareWithKubectl(dir, objects);
      if (problems.length) {
        failed = true;
        process.stderr.write(`${problems.join('\n')}\n`);
      } else {
        process.stdout.write(`ok  ${dir}: ${objects.length} objects valid (${objects.map((o) => o.kind).join(', ')}); ${compared}\n`);
      }
    }
    if (failed) process.exit(1);
  } else if (command === 'pod') {
    const [dir, image, out, ...pairs] = args;
    const overrides = Object.fromEntries(pairs.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]));
    const objects = render(dir);
    const deployment = objects.find((o) => o.kind === 'Deployment');
    const configMap = objects.find((o) => o.kind === 'ConfigMap');
    const secret = objects.find((o) => o.kind === 'Secret');
    const secrets = secretValues(secret);
    const container = deployment.spec.template.spec.containers[0];
    container.image = image;
    for (const [key, value] of Object.entries(overrides)) {
      const env = container.env?.find((e) => e.name === key && 'value' in e);
      if (key in secrets) secrets[key] = value;
      else if (key in (configMap.data ?? {})) configMap.data[key] = value;
      else if (env) env.value = value;
      else throw new Error(`${key} is neither in the Secret, the ConfigMap nor a value of the container's env`);
    }
    // `kube play --network host` refuses port mappings: the pod listens on the host's PORT, and the
    // probes ask that port by number.
    const port = Number(container.env?.find((e) => e.name === 'PORT')?.value ?? configMap.data?.PORT);
    if (!port) throw new Error('PORT is neither in the ConfigMap nor a value of the container\'s env');
    delete container.ports;
    for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
      if (container[probe]?.httpGet) container[probe].httpGet.port = port;
    }
    // Podman 4.3's `kube play` does not read back the Secrets it stores (it fails on their
    // encoding): the secretKeyRef values are written into the env instead (an optional one that
    // the Secret lacks is left out, as Kubernetes does).
    container.env = (container.env ?? []).filter((env) => {
      const ref = env.valueFrom?.secretKeyRef;
      if (!ref) return true;
      const found = secret && ref.name === secret.metadata.name && ref.key in secrets;
      if (!found && ref.optional) return false;
      if (!found) throw new Error(`${env.name}: ${ref.name}/${ref.key} not found`);
      env.value = secrets[ref.key];
      delete env.valueFrom;
      return true;
    });
    writeFileSync(out, [configMap, deployment].map((o) => YAML.stringify(o)).join('---\n'));
  } else {
    process.stderr.write('usage: kubernetes.js render DIR | check DIR... | pod DIR IMAGE OUT.yaml [KEY=VALUE...]\n');
    process.exit(2);
  }
}

main().catch((error) => {
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
});
