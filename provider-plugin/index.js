// The plugin's entry point: the engine runs it (through `pulumi-resource-flagstack` beside it, or
// the Node.js language host's `@pulumi/pulumi/cmd/run-plugin <this directory> <address>`) with the
// engine's address as the argument. It runs the provider's bundle (`npm run build`:
// dist/bundle/flagstack-provider.js, from provider/binary.ts), the same file the release's plugin
// executables carry, in its Pulumi mode.
"use strict";
require("node:module").enableCompileCache?.();
require("../dist/bundle/flagstack-provider.js")
  .main(__filename, ["pulumi", ...process.argv.slice(2)])
  .catch((e) => {
    console.error(e);
    process.exit(1);
  });
