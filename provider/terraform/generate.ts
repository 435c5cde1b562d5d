/**
 * Writes the Terraform door's precomputed `GetMetadata` and `GetProviderSchema` answers
 * (`./schema-answer.ts`) into `provider-plugin/terraform-schema.json`, from the list of kinds and
 * the committed package schema: `npm run schema` runs it after the package schema, `--check`
 * fails when the file is not current (as `test/provider/terraform/schema-answer.test.ts` does).
 * @module
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SCHEMA_ANSWER_PATH, type SchemaAnswers, schemaAnswerText } from "./schema-answer";
import { catalog, TerraformProvider } from "./server";

/** The file's absolute path in this checkout (run from the sources: `provider/terraform/`). */
export const SCHEMA_ANSWER_FILE = join(__dirname, "..", "..", SCHEMA_ANSWER_PATH);

/** The answers the dispatch derives from the list of kinds. */
export function generateSchemaAnswers(): SchemaAnswers {
  const provider = new TerraformProvider(catalog());
  return { metadata: provider.getMetadata(), schema: provider.getProviderSchema() };
}

if (require.main === module) {
  const text = schemaAnswerText(generateSchemaAnswers());
  if (process.argv.includes("--check")) {
    let committed = "";
    try {
      committed = readFileSync(SCHEMA_ANSWER_FILE, "utf8");
    } catch {
      // missing: not current
    }
    if (committed !== text) {
      process.stderr.write(`${SCHEMA_ANSWER_FILE} is not current: run \`npm run schema\`\n`);
      process.exit(1);
    }
  } else {
    writeFileSync(SCHEMA_ANSWER_FILE, text);
    process.stdout.write(`wrote ${SCHEMA_ANSWER_FILE}\n`);
  }
}
