/**
 * Objects declared once and rendered for both doors (test/e2e/policy-check.test.ts,
 * test/e2e/impact.test.ts): as the `spec.json` of `test/e2e/programs/policy-check` (a Pulumi
 * program) and as HCL through the Terraform door's schema (each input by its snake_case attribute).
 */
import { KIND_LIST } from "../../provider/kinds";
import {
  readPackageSchema,
  resourceSchema,
  snakeCase,
  type TfResource,
  type TfType,
} from "../../provider/terraform/schema";

export /** A resource as both doors declare it: `new <kind>(name, args)`, `resource "flagstack_<kind>" "<name>"`. */
interface Declared {
  kind: string;
  name: string;
  args: Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------
// The objects as HCL, through the Terraform door's schema

const SCHEMA = readPackageSchema();
const TF: ReadonlyMap<string, TfResource> = new Map(
  KIND_LIST.map((k) => [k.name, resourceSchema(k, SCHEMA)]),
);

/** An HCL string literal: JSON's escapes, and `${` / `%{` escaped as HCL wants. */
const hclString = (s: string) => JSON.stringify(s).replace(/\$\{/g, "$${").replace(/%\{/g, "%%{");

/** A value as an HCL expression, members named by the attribute's type. */
function hcl(
  value: unknown,
  type: TfType | undefined,
  indent: string,
  declared: readonly Declared[],
): string {
  if (value !== null && typeof value === "object" && "$ref" in value) {
    const [name, output] = String((value as { $ref: string }).$ref).split(".") as [string, string];
    const target = declared.find((d) => d.name === name);
    if (!target) throw new Error(`$ref to ${name}: not declared`);
    return `${TF.get(target.kind)?.typeName}.${name}.${snakeCase(output)}`;
  }
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    const element = type?.kind === "list" ? type.element : undefined;
    if (value.length === 0) return "[]";
    return `[\n${value.map((v) => `${inner}${hcl(v, element, inner, declared)},`).join("\n")}\n${indent}]`;
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    const members = entries.map(([k, v]) => {
      if (type?.kind === "object") {
        const a = type.attributes.find((x) => x.key === k);
        if (!a) throw new Error(`no attribute for ${k}`);
        return `${inner}${a.name} = ${hcl(v, a.type, inner, declared)}`;
      }
      const element = type?.kind === "map" ? type.element : undefined;
      return `${inner}${hclString(k)} = ${hcl(v, element, inner, declared)}`;
    });
    return entries.length === 0 ? "{}" : `{\n${members.join("\n")}\n${indent}}`;
  }
  if (typeof value === "string") {
    // A multi-line text as a heredoc reads as the program's template literal does.
    if (value.includes("\n") && value.endsWith("\n") && !value.includes("${") && !value.includes("%{"))
      return `<<-EOT\n${value}EOT`;
    return hclString(value);
  }
  return JSON.stringify(value);
}

/** The objects as resource blocks. */
export function hclOf(declared: readonly Declared[]): string {
  return declared
    .map(({ kind, name, args }) => {
      const r = TF.get(kind);
      if (!r) throw new Error(`no kind ${kind}`);
      const body = hcl(args, { kind: "object", attributes: r.attributes }, "", declared);
      return `resource "${r.typeName}" "${name}" ${body}\n`;
    })
    .join("\n");
}
