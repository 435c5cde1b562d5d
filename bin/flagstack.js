#!/usr/bin/env node
// The `flagstack` command. The TypeScript sources compile to dist/ (npm run build).
require("../dist/cli/index.js")
  .main(process.argv)
  .catch((err) => {
    console.error(`flagstack: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  });
