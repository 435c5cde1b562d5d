// The provider binary's main script (`./release-binary.mts` makes it the single executable's
// `main`): it runs the provider's bundle, the executable's asset `flagstack-provider.js` (the very
// file esbuild wrote from provider/binary.ts), with V8's code cache of an earlier start.
//
// Terraform starts the provider several times per command, and compiling the bundle (5 MB) is
// a large part of a start: the npm package's launcher has Node's compile cache for the same reason
// (`bin/terraform-provider-flagstack`). A single executable's own code cache (`useCodeCache`) is
// made where the release is built and holds only what compiles eagerly; this one is made on the
// machine, at a start's exit, and holds every function that start compiled. It lives in the OS's
// temporary directory, per user, named by the bundle's hash and the Node version, so a new release
// or another Node never reads it; V8 rejects a cache that does not match its source and flags, and
// the bundle then compiles as without one. `FLAGSTACK_CODE_CACHE=off` turns it off.
//
// Two caches: one made by a start that loaded the provider's dispatch (it served a resource:
// `provider/binary.ts` marks it), which every later start reads, and, until there is one, one made
// by the machine's first start. A start writes only the cache it lacks: making one takes about
// 10 ms, on the way out of every start that did, and OpenTofu waits for each start to exit
// (issue 35).
"use strict";
const { createHash } = require("node:crypto");
const { mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } = require("node:fs");
const { tmpdir, userInfo } = require("node:os");
const { join } = require("node:path");
const sea = require("node:sea");
const vm = require("node:vm");

const source = sea.getAsset("flagstack-provider.js", "utf8");
const filename = join(process.execPath, "..", "flagstack-provider.js");
const wrapped = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
let cacheDir;
let cacheName;
let cachedData;
/** Which cache this start read: "full" (a start that loaded the dispatch made it), "first", or none. */
let read;
if (process.env.FLAGSTACK_CODE_CACHE !== "off") {
  try {
    const user = (() => {
      try {
        return String(userInfo().uid);
      } catch {
        return "user";
      }
    })();
    const hash = createHash("sha256").update(source).digest("hex").slice(0, 16);
    cacheDir = join(tmpdir(), `flagstack-provider-cache-${user}`);
    cacheName = `${hash}-${process.version}`;
    for (const kind of ["full", "first"]) {
      try {
        cachedData = readFileSync(join(cacheDir, `${cacheName}-${kind}.v8`));
        read = kind;
        break;
      } catch {
        // not made yet
      }
    }
  } catch {
    // no cache yet: this start writes it
  }
}
const script = new vm.Script(wrapped, { filename, cachedData });
// Written at the exit of a start that served Terraform or Pulumi (`provider/binary.ts` says so;
// the Pulumi engine kills its plugins, so two seconds in too), when it lacks the cache this start
// can make: the full one after the dispatch loaded (`FULL`), else the first one while there is
// none. Replaced whole, by a rename, so a start never reads half of one.
const SERVING = Symbol.for("flagstack.binary.serving");
const FULL = Symbol.for("flagstack.binary.dispatch");
const written = new Set();
/** The cache this start lacks and can make, or `undefined`. */
function cacheToWrite() {
  const rejected = script.cachedDataRejected === true;
  if (globalThis[FULL] === true) return read === "full" && !rejected ? undefined : "full";
  return read === undefined || rejected ? "first" : undefined;
}
function writeCache() {
  if (cacheName === undefined || globalThis[SERVING] !== true) return;
  const kind = cacheToWrite();
  if (kind === undefined || written.has(kind)) return;
  written.add(kind);
  const file = join(cacheDir, `${cacheName}-${kind}.v8`);
  const temporary = `${file}.${process.pid}`;
  try {
    mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
    writeFileSync(temporary, script.createCachedData());
    renameSync(temporary, file);
  } catch {
    // A cache that cannot be written (a full disk) costs the next start its compile, nothing else;
    // what was written of it goes.
    try {
      unlinkSync(temporary);
    } catch {
      // nothing was written
    }
  }
}
process.once("exit", writeCache);
setTimeout(writeCache, 2000).unref();
script.runInThisContext()(module.exports, require, module, filename, join(filename, ".."));
