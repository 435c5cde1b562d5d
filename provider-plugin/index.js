// The plugin's entry point: the Node.js language host runs it with the engine's address as the
// argument (`@pulumi/pulumi/cmd/run-plugin <this directory> <address>`). The provider itself is
// the package's build (`npm run build`): provider/native/server.ts.
"use strict";
const { join } = require("node:path");
const { serve } = require("../dist/provider/native/server.js");
const { version } = require("../package.json");

serve(process.argv.slice(2), { schemaFile: join(__dirname, "schema.json"), version }).catch((e) => {
  console.error(e);
  process.exit(1);
});
