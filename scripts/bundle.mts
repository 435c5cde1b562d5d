/**
 * The provider's bundle (`npm run build`, and the tests' global setup): `provider/binary.ts` and
 * everything it reaches, one CommonJS file, `dist/bundle/flagstack-provider.js`. The npm package's
 * Terraform launcher (`bin/terraform-provider-flagstack`) and Pulumi plugin directory
 * (`provider-plugin/`) run it, and `npm run release` injects the same file into each platform's
 * executable: every door installs the same bits (`./release-binary.mts`).
 */
import { relative } from "node:path";
import { BUNDLE, bundle } from "./release-binary.mts";

const started = performance.now();
await bundle(BUNDLE);
console.error(
  `bundle: wrote ${relative(process.cwd(), BUNDLE)} in ${Math.round(performance.now() - started)} ms`,
);
