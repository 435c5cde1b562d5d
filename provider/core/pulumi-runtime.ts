/**
 * The one place below the Pulumi doors that reaches the Pulumi runtime (`@pulumi/pulumi`), and only
 * when a Pulumi door asks: each function `require`s the part it needs on its first call, never at
 * module load. The kinds, `provider/core/`, the SDK, the emulator and the Terraform door load no
 * `@pulumi/pulumi` (an optional peer dependency that a Terraform user does not install, and that
 * the provider binary's Terraform mode never runs): `test/provider/runtime-imports.test.ts` walks
 * the built modules the Terraform door loads and fails on any other `require` of it, and
 * `test/e2e/terraform-package.test.ts` runs the Terraform story where it is not installed.
 *
 * The deep imports are deliberate: the package root also loads the Automation API (0.25 s of a
 * program's start), which neither a program nor the provider process needs.
 * @module
 */
import type * as pulumiLogModule from "@pulumi/pulumi/log";
import type * as pulumiOutputModule from "@pulumi/pulumi/output";
import type * as pulumiResourceModule from "@pulumi/pulumi/resource";
import { door } from "./door";

/** Whether this process serves the Terraform door (whose messages and logs are its own). */
const terraformDoor = () => door().tool === "Terraform";

const MISSING =
  "flagstack's Pulumi resources need @pulumi/pulumi (3.259.0 or newer): add it to the program's dependencies";

/** `require(id)`, or an Error saying what to install when the package is not there. */
function load<T>(id: string): T {
  try {
    return require(id) as T;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "MODULE_NOT_FOUND" && String(e).includes("@pulumi/pulumi"))
      throw new Error(MISSING, { cause: e });
    throw e;
  }
}

/** `@pulumi/pulumi/resource`: what a resource class extends (a Pulumi program only). */
export function pulumiResource(): typeof pulumiResourceModule {
  return load("@pulumi/pulumi/resource");
}

/** `@pulumi/pulumi/output`: `secret`, `output` (a Pulumi program only). */
export function pulumiOutput(): typeof pulumiOutputModule {
  return load("@pulumi/pulumi/output");
}

/** `new Config(namespace).get(name)` of the program's stack config; `undefined` outside a Pulumi program. */
export function pulumiConfigValue(namespace: string, name: string): string | undefined {
  if (terraformDoor()) return undefined;
  try {
    const { Config } = require("@pulumi/pulumi/config") as typeof import("@pulumi/pulumi/config");
    return new Config(namespace).get(name);
  } catch {
    // no @pulumi/pulumi, or outside a Pulumi program: there is no config to read
    return undefined;
  }
}

/**
 * The engine's log of a Pulumi door's process, where the engine shows a resource's progress;
 * `undefined` in the Terraform door or where `@pulumi/pulumi` is not installed (the caller writes
 * to stderr, which Terraform relays).
 */
export function pulumiLog(): typeof pulumiLogModule | undefined {
  if (terraformDoor()) return undefined;
  try {
    return require("@pulumi/pulumi/log") as typeof pulumiLogModule;
  } catch {
    return undefined;
  }
}

/** The Pulumi runtime's store of the current program run; `undefined` in the Terraform door or without `@pulumi/pulumi`. */
export function pulumiRuntimeStore<T>(): T | undefined {
  if (terraformDoor()) return undefined;
  try {
    return (require("@pulumi/pulumi/runtime/state") as { getStore(): T }).getStore();
  } catch {
    return undefined;
  }
}
