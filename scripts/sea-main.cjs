// The provider binary's main script (`./release-binary.mts` makes it the single executable's
// `main`): it runs the provider's bundle, the executable's asset `flagstack-provider.js` (the very
// file esbuild wrote from provider/binary.ts), with V8's code cache of an earlier start.
//
// Terraform starts the provider several times per command, and compiling the bundle (5 MB) is
// most of a start: the npm package's launcher has Node's compile cache for the same reason
// (`bin/terraform-provider-flagstack`). A single executable's own code cache (`useCodeCache`) is
// made where the release is built and holds only what compiles eagerly; this one is made by the
// first start on the machine, at its exit, and holds every function that start compiled. It lives
// in the OS's temporary directory, per user, named by the bundle's hash and the Node version, so a
// new release or another Node never reads it; V8 rejects a cache that does not match its source and
// flags, and the bundle then compiles as without one. `FLAGSTACK_CODE_CACHE=off` turns it off.
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
let cacheFile;
let cachedData;
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
    const dir = join(tmpdir(), `flagstack-provider-cache-${user}`);
    cacheFile = join(dir, `${hash}-${process.version}.v8`);
    cachedData = readFileSync(cacheFile);
  } catch {
    // no cache yet: this start writes it
  }
}
const script = new vm.Script(wrapped, { filename, cachedData });
// Written by a start that served Terraform or Pulumi (`provider/binary.ts` says so), at its exit
// (Terraform's Shutdown) and two seconds in (the Pulumi engine kills its plugins): V8's cache then
// holds what that start compiled, beside what it read from the cache. Written anew each time
// (a few milliseconds), so the cache gathers what each kind of start compiles; replaced whole, by
// a rename, so a start never reads half of one.
const SERVING = Symbol.for("flagstack.binary.serving");
function writeCache() {
  if (cacheFile === undefined || globalThis[SERVING] !== true) return;
  const temporary = `${cacheFile}.${process.pid}`;
  try {
    mkdirSync(join(cacheFile, ".."), { recursive: true, mode: 0o700 });
    writeFileSync(temporary, script.createCachedData());
    renameSync(temporary, cacheFile);
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
