/**
 * The answers of `GetMetadata` and `GetProviderSchema`, precomputed (issue 26, start time): every
 * start of the provider answers `GetProviderSchema` first, and OpenTofu starts it several times per
 * command (three for a `plan`), some of them only for the schema. Deriving the schema from the list
 * of kinds loads every kind, the SDK, zod and undici (about two thirds of a start), so the answers
 * are written once by `npm run schema` into `provider-plugin/terraform-schema.json` (beside the
 * package schema they are derived from) and a start reads that file; the kinds load on the first
 * request that needs them (`./plugin.ts`). `test/provider/terraform/schema-answer.test.ts` fails
 * when the file is not what the kinds derive.
 *
 * The file is the two messages as JSON, each attribute's `type` (bytes on the wire: the type
 * constraint's JSON) as its text. This module loads nothing but `node:fs` (`../core/package-file.ts`).
 * @module
 */
import { join } from "node:path";
import { readPackageFile } from "../core/package-file";

/** The file's path inside the package. */
export const SCHEMA_ANSWER_PATH = join("provider-plugin", "terraform-schema.json");
/** The same, as the package names its files (`/`-separated). */
export const SCHEMA_ANSWER_FILE = "provider-plugin/terraform-schema.json";

/** The two answers, as the protocol's messages (plain objects). */
export interface SchemaAnswers {
  metadata: Record<string, unknown>;
  schema: Record<string, unknown>;
}

/** The answers as the committed file holds them: two-space JSON, `type` as text, a final newline. */
export function schemaAnswerText(answers: SchemaAnswers): string {
  return `${JSON.stringify(
    answers,
    (key, value: unknown) =>
      key === "type" && Buffer.isBuffer(value)
        ? value.toString("utf8")
        : key === "type" && isBufferJson(value)
          ? Buffer.from(value.data).toString("utf8")
          : value,
    2,
  )}\n`;
}

// `JSON.stringify` calls a Buffer's `toJSON` before the replacer sees it.
function isBufferJson(v: unknown): v is { type: "Buffer"; data: number[] } {
  return typeof v === "object" && v !== null && (v as { type?: unknown }).type === "Buffer";
}

/** The answers from the file's text: each `type` text as the bytes the wire carries. */
export function parseSchemaAnswers(text: string): SchemaAnswers {
  return JSON.parse(text, (key, value: unknown) =>
    key === "type" && typeof value === "string" ? Buffer.from(value, "utf8") : value,
  ) as SchemaAnswers;
}

/**
 * The committed answers, from the copy the provider binary carries, the source tree or a build
 * (the first `provider-plugin/` above `from`, `../core/package-file.ts`); `undefined` when there is
 * none (the dispatch then derives them from the kinds).
 */
export function readSchemaAnswers(from: string = __dirname): SchemaAnswers | undefined {
  const text = readPackageFile(SCHEMA_ANSWER_FILE, from);
  return text === undefined ? undefined : parseSchemaAnswers(text);
}
