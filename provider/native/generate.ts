/**
 * Generates the package schema of the native provider into `provider-plugin/schema.json`, the
 * file the plugin serves (`pulumi package get-schema provider-plugin` prints it):
 * `npm run schema` writes it, `npm run schema -- --check` fails when it is not current. The test
 * `test/native/schema.test.ts` makes the same comparison.
 * @module
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ProviderSettings } from "../core/config";
import { packageRoot, readDocs } from "./docs";
import { NATIVE_FUNCTIONS } from "./functions";
import { NATIVE_KINDS } from "./kinds";
import { type PackageSchema, packageSchema } from "./schema";

/** Where the committed schema lives: beside the plugin's `PulumiPlugin.yaml`. */
export const SCHEMA_FILE = join(packageRoot(), "provider-plugin", "schema.json");

/** The schema from the current zod schemas and TSDoc (about ten seconds: see `./docs.ts`). */
export function generateSchema(): PackageSchema {
  const { version } = JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as {
    version: string;
  };
  return packageSchema(NATIVE_KINDS, {
    version,
    docs: readDocs(NATIVE_KINDS, NATIVE_FUNCTIONS),
    settings: ProviderSettings,
    functions: NATIVE_FUNCTIONS,
  });
}

/** The schema as the committed file holds it: two-space JSON and a final newline. */
export const schemaText = (schema: PackageSchema): string => `${JSON.stringify(schema, null, 2)}\n`;

if (require.main === module) {
  const text = schemaText(generateSchema());
  if (process.argv.includes("--check")) {
    let committed = "";
    try {
      committed = readFileSync(SCHEMA_FILE, "utf8");
    } catch {
      // missing: not current
    }
    if (committed !== text) {
      process.stderr.write(`${SCHEMA_FILE} is not current: run \`npm run schema\`\n`);
      process.exit(1);
    }
  } else {
    writeFileSync(SCHEMA_FILE, text);
    process.stdout.write(`wrote ${SCHEMA_FILE}\n`);
  }
}
