/**
 * The list of kinds (`../kinds.ts`) as loaders, by kind name in the list's order: what the
 * Terraform door's catalog takes (`./server.ts`). Here each loader returns the kind the
 * list holds; the provider bundle swaps this module for `./kind-loaders.lazy.ts`, whose loaders
 * load each kind's module on first use (a `require` of a TypeScript module, which only the bundle
 * and the build resolve).
 * @module
 */

import type { Kind } from "../core/kind";
import { KIND_LIST } from "../kinds";

/** Each kind's loader, by name, in the order of the list of kinds. */
export const KIND_LOADERS: Readonly<Record<string, () => Kind>> = Object.fromEntries(
  KIND_LIST.map((kind) => [kind.name, () => kind]),
);

/**
 * The kinds that own others (a flag its definitions): the service deletes what names them as
 * `owner` with them (`./held-deletes.ts`). The Terraform door asks this of a delete without
 * loading every kind.
 */
export const OWNER_KINDS: readonly string[] = KIND_LIST.filter((k) =>
  KIND_LIST.some((o) => o.resource.owner?.type === k.resource.__pulumiType),
).map((k) => k.name);
