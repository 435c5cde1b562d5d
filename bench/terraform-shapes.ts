/**
 * The Terraform workload of `./terraform.bench.ts` in each configuration shape a user may write it
 * in (issue 35): `flags` flags named `bench-tf-NNN`, each with a definition in every environment of
 * `./up.bench.ts`, the same inputs as that bench's `spec`, as one directory's files (path → text).
 *
 * OpenTofu 1.12 plans each instance of a `for_each` resource by evaluating the resource's whole
 * `for_each` expression again (`NodeAbstractResourceInstance.plan` → `evaluateForEachExpression`,
 * which walks every element for marks), and evaluates a reference to another `for_each` resource
 * by building that resource's whole map: a `for_each` over thousands of elements costs it the
 * square of them, whatever the provider does. The shapes:
 * - `blocks`: each resource a block of its own, as a hand-written configuration has them: linear;
 * - `for_each`: the reference shape of a large configuration (the Go peer's own): one `for_each`
 *   over the flags and one over the definitions, each definition naming its flag as
 *   `flagstack_flag.flag[each.value.flag].name`: quadratic;
 * - `modules`: a `module` block per flag, the module holding the flag and a `for_each` over its
 *   environments, each definition naming the module's one flag (`flagstack_flag.this.name`): every
 *   `for_each` has three elements and every reference is to one resource, so each flag costs
 *   OpenTofu the same at any number of flags: linear, four OpenTofu resources per flag;
 * - `flag_definitions` ({@link SCALING_SHAPE}, docs/terraform.md "Thousands of flags"): the same
 *   module block per flag, the module holding the flag and one `flagstack_flag_definitions` with
 *   its definition in each environment (a map built by a `for` over the three): linear, and two
 *   OpenTofu resources per flag, so OpenTofu's own work per resource (its walk, its state) is
 *   half the `modules` shape's;
 * - the candidates that are not linear, kept to measure them again: `module_for_each` (the same
 *   module called with `for_each` over the flags), `for_each_local` (the definitions naming their
 *   flag through a local map of the names), `for_each_name` (naming it by the same string, with
 *   `depends_on` on the flag resource) and `chained` (the definitions' `for_each` built from the
 *   flag resource's map).
 * @module
 */
import { PROVIDER_HCL } from "../test/e2e/tofu";
import { ENVIRONMENTS } from "./up.bench";

export const SHAPES = [
  "blocks",
  "for_each",
  "modules",
  "flag_definitions",
  "module_for_each",
  "for_each_local",
  "for_each_name",
  "chained",
] as const;
export type Shape = (typeof SHAPES)[number];

/** The shape docs/terraform.md and the examples use for thousands of flags. */
export const SCALING_SHAPE = "flag_definitions" satisfies Shape;

/** The OpenTofu resources of `flags` flags in `shape`: the flag, and a definition per environment or one object holding them. */
export const resourcesOf = (shape: Shape, flags: number): number =>
  flags * (shape === "flag_definitions" ? 2 : 1 + ENVIRONMENTS.length);

const key = (i: number) => `f${String(i).padStart(3, "0")}`;
const environments = `[${ENVIRONMENTS.map((e) => JSON.stringify(e)).join(", ")}]`;

/** A definition's inputs after `workspace`, `flag` and `environment` (the same in every shape). */
const DEFINITION_BODY = (
  keys: string,
) => `  treatments        = [{ name = "on", keys = [${keys}] }, { name = "off" }]
  default_treatment = "off"
  default_rule      = [{ treatment = "on", size = 10 }, { treatment = "off", size = 90 }]`;

/** The module's definitions, one resource per environment (the `modules` shape). */
const DEFINITION_RESOURCES = `
resource "flagstack_flag_definition" "env" {
  for_each          = toset(${environments})
  workspace         = "Default"
  flag              = flagstack_flag.this.name
  environment       = each.key
${DEFINITION_BODY(`"user-\${var.index}"`)}
}
`;

/** The module's definitions, one resource holding each environment's (the `flag_definitions` shape). */
const DEFINITIONS_RESOURCE = `
resource "flagstack_flag_definitions" "this" {
  workspace = "Default"
  flag      = flagstack_flag.this.name
  definitions = { for env in ${environments} : env => {
  ${DEFINITION_BODY(`"user-\${var.index}"`).replaceAll("\n", "\n  ")}
  } }
}
`;

/** The flags as a map `fNNN` → index, for the `for_each` shapes. */
const FLAGS_LOCAL = (flags: number) => `flags = { for i in range(${flags}) : format("f%03d", i) => i }`;

/** What a definition of a `for_each` shape names its flag by, and what the shape adds. */
interface ForEachVariant {
  flag: string;
  local?: string;
  forEach?: string;
  after?: string;
}

/** HCL's interpolation of `expr`: `${expr}`. */
const interpolate = (expr: string) => `\${${expr}}`;

/**
 * How each shape with one `for_each` over the definitions differs: what a definition's `flag` is,
 * and what it adds (a local, the `for_each`, a line after `environment`).
 */
const FOR_EACH_VARIANTS = {
  for_each: { flag: "flagstack_flag.flag[each.value.flag].name" },
  for_each_local: {
    flag: "local.flag_names[each.value.flag]",
    local: "\n  flag_names = { for k, f in flagstack_flag.flag : k => f.name }",
  },
  for_each_name: {
    flag: `"bench-tf-${interpolate("each.value.flag")}"`,
    after: "\n  depends_on        = [flagstack_flag.flag]",
  },
  chained: {
    flag: "each.value.flag",
    forEach: `merge([for k, f in flagstack_flag.flag : { for e in local.environments : "${interpolate("k")}-${interpolate("e")}" => { flag = f.name, environment = e, i = local.flags[k] } }]...)`,
  },
} satisfies Partial<Record<Shape, ForEachVariant>>;

/** The shape's files: `main.tf` (with {@link PROVIDER_HCL}) and, for the module shapes, `flag/main.tf`. */
export function shapeFiles(shape: Shape, flags: number): Record<string, string> {
  if (shape === "blocks") {
    let text = PROVIDER_HCL;
    for (let i = 0; i < flags; i++) {
      const k = key(i);
      text += `
resource "flagstack_flag" "${k}" {
  workspace   = "Default"
  name        = "bench-tf-${k}"
  description = "bench flag ${i}"
  tags        = ["owner:bench"]
}
`;
      for (const env of ENVIRONMENTS)
        text += `
resource "flagstack_flag_definition" "${k}_${env.toLowerCase()}" {
  workspace         = "Default"
  flag              = flagstack_flag.${k}.name
  environment       = "${env}"
${DEFINITION_BODY(`"user-${i}"`)}
}
`;
    }
    return { "main.tf": text };
  }
  const variant: ForEachVariant | undefined = FOR_EACH_VARIANTS[shape as keyof typeof FOR_EACH_VARIANTS];
  if (variant !== undefined)
    return {
      "main.tf": `${PROVIDER_HCL}
locals {
  environments = ${environments}
  ${FLAGS_LOCAL(flags)}
  definitions = merge([
    for k, i in local.flags : { for e in local.environments : "\${k}-\${e}" => { flag = k, environment = e, i = i } }
  ]...)${variant.local ?? ""}
}

resource "flagstack_flag" "flag" {
  for_each    = local.flags
  workspace   = "Default"
  name        = "bench-tf-\${each.key}"
  description = "bench flag \${each.value}"
  tags        = ["owner:bench"]
}

resource "flagstack_flag_definition" "def" {
  for_each          = ${variant.forEach ?? "local.definitions"}
  workspace         = "Default"
  flag              = ${variant.flag}
  environment       = each.value.environment${variant.after ?? ""}
${DEFINITION_BODY(`"user-\${each.value.i}"`)}
}
`,
    };
  let calls = "";
  for (let i = 0; i < flags; i++)
    calls += `
module "${key(i)}" {
  source = "./flag"
  name   = "bench-tf-${key(i)}"
  index  = ${i}
}
`;
  return {
    "main.tf":
      shape === "modules" || shape === "flag_definitions"
        ? `${PROVIDER_HCL}${calls}`
        : `${PROVIDER_HCL}
locals {
  ${FLAGS_LOCAL(flags)}
}

module "flag" {
  source   = "./flag"
  for_each = local.flags
  name     = "bench-tf-\${each.key}"
  index    = each.value
}
`,
    "flag/main.tf": `terraform {
  required_providers {
    flagstack = {
      source = "flagstack.local/flagstack/flagstack"
    }
  }
}

variable "name" {
  type = string
}

variable "index" {
  type = number
}

resource "flagstack_flag" "this" {
  workspace   = "Default"
  name        = var.name
  description = "bench flag \${var.index}"
  tags        = ["owner:bench"]
}

${shape === "flag_definitions" ? DEFINITIONS_RESOURCE : DEFINITION_RESOURCES}`,
  };
}
